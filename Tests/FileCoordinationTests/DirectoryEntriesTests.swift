import FileCoordination
import Foundation
import Testing

/// A presenter of a directory that observes uncoordinated changes hears of its entries: one presenter (one kernel
/// watch) for every file of a directory, however many there are.
@Suite("A directory presenter's entries")
struct DirectoryEntriesTests {
    @Test("entries written, renamed and deleted without coordination reach the directory's presenter at their URLs")
    func uncoordinatedEntryChanges() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let directory = try tree.directory("d")
        let presenter = RecordingPresenter(url: directory, name: "directory", observesUncoordinatedChanges: true)
        FileCoordinator.addFilePresenter(presenter)
        defer { FileCoordinator.removeFilePresenter(presenter) }
        try CoordinationService.synchronize()
        let (a, b) = (directory.appendingPathComponent("a.pdf"), directory.appendingPathComponent("b.pdf"))
        try Data("one".utf8).write(to: a)
        #expect(presenter.waitFor(.subitemDidChange(a.path)))
        #expect(rename(a.path, b.path) == 0)
        #expect(presenter.waitFor(.subitemDidMove(a.path, b.path)))
        #expect(unlink(b.path) == 0)
        #expect(presenter.waitFor(.accommodateSubitemDeletion(b.path)))
        _ = presenter.drainQueue()
        // Nothing about the directory itself, and each entry's change once.
        #expect(
            presenter.events == [
                .subitemDidChange(a.path), .subitemDidMove(a.path, b.path), .accommodateSubitemDeletion(b.path),
            ])
    }
}
