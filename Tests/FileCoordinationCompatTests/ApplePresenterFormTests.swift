import FileCoordinationCompat
import Foundation
import Synchronization
import Testing

/// A directory presenter as the macOS presenter sample writes it: every creation beneath the directory is expected
/// as `presentedSubitemDidChange(at:)`; `presentedSubitemDidAppear(at:)` is recorded (the sample traps there).
final class InboxPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    private let lock = NSLock()
    private var _events: [String] = []
    var events: [String] { lock.withLock { _events } }

    init(url: URL) { presentedItemURL = url }

    private func record(_ event: String) { lock.withLock { _events.append(event) } }

    func presentedSubitemDidChange(at url: URL) { record("change \(url.lastPathComponent)") }
    func presentedSubitemDidAppear(at url: URL) { record("appear \(url.lastPathComponent)") }
    func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) {
        record("move \(oldURL.lastPathComponent) \(newURL.lastPathComponent)")
    }
}

/// A presenter with only Apple's async forms of the completion-handler methods.
final class AsyncOnlyPresenter: NSObject, NSFilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue = OperationQueue()
    let refusal: NSError?
    private let lock = NSLock()
    private var _events: [String] = []
    var events: [String] { lock.withLock { _events } }

    init(url: URL, refusal: NSError?) {
        presentedItemURL = url
        self.refusal = refusal
    }

    private func answer(_ event: String) throws {
        lock.withLock { _events.append(event) }
        if let refusal { throw refusal }
    }

    func savePresentedItemChanges() async throws { try answer("save") }
    func accommodatePresentedItemDeletion() async throws { try answer("deletion") }
    func accommodatePresentedSubitemDeletion(at url: URL) async throws {
        try answer("subitem deletion \(url.lastPathComponent)")
    }
}

/// Issue 30, items 1 and 2 in one process (the probes' tests in FileCoordinationTests cross processes).
@Suite("Apple's presenter forms", .serialized)
struct ApplePresenterFormTests {
    static func folder() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "quire-forms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Waits (at most 5 s) until `events()` has `count` entries.
    static func waitFor(_ count: Int, _ events: () -> [String]) async throws {
        let deadline = Date().addingTimeInterval(5)
        while events().count < count && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
    }

    /// Writes `body` in a coordinated write of `url` with `options`, by a coordinator without a presenter.
    static func write(_ url: URL, _ options: NSFileCoordinator.WritingOptions = [], _ body: (URL) throws -> Void)
        -> NSError?
    {
        var error: NSError?
        var thrown: (any Error)?
        NSFileCoordinator().coordinate(writingItemAt: url, options: options, error: &error) { url in
            do { try body(url) } catch { thrown = error }
        }
        #expect(thrown == nil)
        return error
    }

    @Test("a plain write, .forReplacing, mkdir and a move into the directory each reach it as a subitem change")
    func creationsAreChanges() async throws {
        let inbox = try Self.folder().appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: false)
        let outside = inbox.deletingLastPathComponent().appendingPathComponent("outside.txt")
        try Data("o".utf8).write(to: outside)
        let presenter = InboxPresenter(url: inbox)
        NSFileCoordinator.addFilePresenter(presenter)
        defer { NSFileCoordinator.removeFilePresenter(presenter) }

        #expect(Self.write(inbox.appendingPathComponent("plain.txt")) { try Data("p".utf8).write(to: $0) } == nil)
        #expect(
            Self.write(inbox.appendingPathComponent("replaced.txt"), .forReplacing) {
                try Data("r".utf8).write(to: $0, options: .atomic)
            } == nil)
        #expect(
            Self.write(inbox.appendingPathComponent("folder")) {
                try FileManager.default.createDirectory(at: $0, withIntermediateDirectories: false)
            } == nil)
        let destination = inbox.appendingPathComponent("moved.txt")
        var error: NSError?
        let mover = NSFileCoordinator()
        mover.coordinate(
            writingItemAt: outside, options: .forMoving, writingItemAt: destination, options: .forReplacing,
            error: &error
        ) { source, target in
            #expect((try? FileManager.default.moveItem(at: source, to: target)) != nil)
            mover.item(at: source, didMoveTo: target)
        }
        #expect(error == nil)
        try await Self.waitFor(4) { presenter.events }
        try await Task.sleep(for: .milliseconds(50))
        #expect(
            presenter.events == ["change plain.txt", "change replaced.txt", "change folder", "change moved.txt"])
    }

    @Test("Quire's own FilePresenter keeps its separate message for a created item")
    func quirePresentersStillHearAppear() async throws {
        final class Appearing: FilePresenter, @unchecked Sendable {
            let presentedItemURL: URL?
            let presentedItemOperationQueue = OperationQueue()
            let heard = Mutex<[String]>([])
            init(url: URL) { presentedItemURL = url }
            func presentedSubitemDidAppear(at url: URL) { heard.withLock { $0.append("appear") } }
            func presentedSubitemDidChange(at url: URL) { heard.withLock { $0.append("change") } }
        }
        let inbox = try Self.folder()
        let presenter = Appearing(url: inbox)
        FileCoordinator.addFilePresenter(presenter)
        defer { FileCoordinator.removeFilePresenter(presenter) }
        #expect(Self.write(inbox.appendingPathComponent("a.txt")) { try Data("a".utf8).write(to: $0) } == nil)
        try await Self.waitFor(1) { presenter.heard.withLock { $0 } }
        #expect(presenter.heard.withLock { $0 } == ["appear"])
    }

    @Test("an async save is called before a read, and its error fails the read as the completion form's would")
    func asyncSave() async throws {
        let file = try Self.folder().appendingPathComponent("doc.txt")
        try Data("x".utf8).write(to: file)
        let refusal = NSError(domain: "Refusing", code: 7, userInfo: [NSLocalizedDescriptionKey: "not now"])
        for refusing in [nil, refusal] {
            let presenter = AsyncOnlyPresenter(url: file, refusal: refusing)
            NSFileCoordinator.addFilePresenter(presenter)
            defer { NSFileCoordinator.removeFilePresenter(presenter) }
            var error: NSError?
            var ran = false
            NSFileCoordinator().coordinate(readingItemAt: file, options: [], error: &error) { _ in ran = true }
            #expect(presenter.events == ["save"])
            #expect(ran == (refusing == nil))
            #expect(error?.domain == refusing?.domain && error?.code == refusing?.code)
        }
    }

    @Test("async deletion forms are called before a .forDeleting write, and their errors stop it")
    func asyncDeletion() async throws {
        let folder = try Self.folder()
        let file = folder.appendingPathComponent("doc.txt")
        try Data("x".utf8).write(to: file)
        let refusal = NSError(domain: "Refusing", code: 8)
        for (presented, expected) in [(file, "deletion"), (folder, "subitem deletion doc.txt")] {
            let presenter = AsyncOnlyPresenter(url: presented, refusal: refusal)
            NSFileCoordinator.addFilePresenter(presenter)
            let error = Self.write(file, .forDeleting) { try FileManager.default.removeItem(at: $0) }
            NSFileCoordinator.removeFilePresenter(presenter)
            #expect(presenter.events == [expected])
            #expect(error?.domain == "Refusing" && error?.code == 8)
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
        let willing = AsyncOnlyPresenter(url: file, refusal: nil)
        NSFileCoordinator.addFilePresenter(willing)
        defer { NSFileCoordinator.removeFilePresenter(willing) }
        #expect(Self.write(file, .forDeleting) { try FileManager.default.removeItem(at: $0) } == nil)
        #expect(willing.events == ["deletion"])
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
