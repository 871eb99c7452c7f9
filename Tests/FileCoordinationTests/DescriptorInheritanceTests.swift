import FileCoordination
import Foundation
import QuireSystem
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every descriptor the library makes is close-on-exec from its creation, so a child another thread starts
/// (`quire exec`'s command, a PDF worker) inherits none of them.
@Suite("Descriptor inheritance", .serialized)
struct DescriptorInheritanceTests {
    /// A presenter that observes uncoordinated changes (so the library runs an inotify watcher for it).
    final class WatchingPresenter: FilePresenter, @unchecked Sendable {
        let presentedItemURL: URL?
        let presentedItemOperationQueue = OperationQueue()
        let observesUncoordinatedChanges = true
        let changed = Signal()

        init(url: URL) { presentedItemURL = url }

        func presentedItemDidChange() { changed.signal() }
    }

    @Test("A child started while coordinating and watching inherits no descriptor of the library")
    func childInheritsNoLibraryDescriptor() throws {
        let baseline = try Self.descriptorsOfChild()
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("watched.txt", contents: "one")
        let presenter = WatchingPresenter(url: file)
        FileCoordinator.addFilePresenter(presenter)
        defer { FileCoordinator.removeFilePresenter(presenter) }
        // An uncoordinated write reaches the presenter only once the inotify watcher (its instance and wake
        // pipe) runs; the coordinated access below connects to, or hosts, the shared arbiter.
        try Data("two".utf8).write(to: file)
        #expect(presenter.changed.wait())
        let whileCoordinating = try FileCoordinator().coordinate(writingItemAt: file) { _ in
            try Self.descriptorsOfChild()
        }
        #expect(whileCoordinating == baseline)
        #expect(try Self.descriptorsOfChild() == baseline)
    }

    /// The descriptors `/bin/sh -c 'ls /proc/self/fd'` finds open (its own directory's one among them), started
    /// with `posix_spawn` and no file action but its standard output, as a child of this process.
    static func descriptorsOfChild() throws -> [Int32] {
        let (read, write) = try SystemCall.makePipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, write, 1)
        let arguments = ["/bin/sh", "-c", "ls /proc/self/fd"]
        var argv = arguments.map { strdup($0) }
        argv.append(nil)
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        SystemCall.close(write)
        defer { SystemCall.close(read) }
        try #require(spawned == 0)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try chunk.withUnsafeMutableBytes { raw in
                try SystemCall.retryingOnInterrupt("read") { Glibc.read(read, raw.baseAddress, raw.count) }
            }
            if count == 0 { break }
            output += chunk[0..<count]
        }
        var status: Int32 = 0
        try SystemCall.retryingOnInterrupt("waitpid") { waitpid(pid, &status, 0) }
        #expect(status == 0)
        return String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
            .sorted()
    }
}
