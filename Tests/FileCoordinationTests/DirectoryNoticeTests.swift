import FileCoordination
import Foundation
import Testing

/// What presenters of a directory hear of each kind of coordinated write beneath it, what a file's presenter
/// hears of a metadata-only write, and the package fallback to `presentedItemDidChange` (issue 15, points 2–4).
@Suite("Directory notices")
struct DirectoryNoticeTests {
    /// A directory `d` in a fresh tree, with a registered recording presenter.
    struct PresentedDirectory {
        let tree: TemporaryTree
        let directory: URL
        let presenter: RecordingPresenter

        init() throws {
            tree = try TemporaryTree()
            directory = try tree.directory("d")
            presenter = RecordingPresenter.registered(at: directory, name: "directory")
        }

        /// The path of `name` inside the directory, as the presenter records it.
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        /// Waits for `last`, lets the queue drain, and returns every event.
        func events(after last: RecordingPresenter.Event) -> [RecordingPresenter.Event] {
            _ = presenter.waitFor(last)
            _ = presenter.drainQueue()
            return presenter.events
        }

        func close() {
            FileCoordinator.removeFilePresenter(presenter)
            tree.remove()
        }
    }

    @Test("a .forReplacing write that creates an item beneath the directory: presentedSubitemDidAppear")
    func replacingCreation() throws {
        let fixture = try PresentedDirectory()
        defer { fixture.close() }
        let new = fixture.directory.appendingPathComponent("new.txt")
        try makeCoordinator().coordinate(writingItemAt: new, options: .forReplacing) { url in
            try Data("v1".utf8).write(to: url)
        }
        #expect(fixture.events(after: .subitemDidAppear(new.path)) == [.subitemDidAppear(new.path)])
    }

    @Test("a .forReplacing write of an existing item beneath the directory: presentedSubitemDidChange")
    func replacingExisting() throws {
        let fixture = try PresentedDirectory()
        defer { fixture.close() }
        let file = try fixture.tree.file("d/sub/old.txt", contents: "v1")
        try makeCoordinator().coordinate(writingItemAt: file, options: .forReplacing) { url in
            try Data("v2".utf8).write(to: url, options: .atomic)
        }
        #expect(fixture.events(after: .subitemDidChange(file.path)) == [.subitemDidChange(file.path)])
    }

    @Test("a .forDeleting write beneath the directory: accommodate the deletion first, then a subitem change")
    func deletion() throws {
        let fixture = try PresentedDirectory()
        defer { fixture.close() }
        let file = try fixture.tree.file("d/gone.txt", contents: "x")
        try makeCoordinator().coordinate(writingItemAt: file, options: .forDeleting) { url in
            fixture.presenter.mark("delete")
            try FileManager.default.removeItem(at: url)
        }
        #expect(
            fixture.events(after: .subitemDidChange(file.path)) == [
                .accommodateSubitemDeletion(file.path), .mark("delete"), .subitemDidChange(file.path),
            ])
    }

    @Test("a .contentIndependentMetadataOnly write beneath the directory: presentedSubitemDidChange")
    func metadataBeneath() throws {
        let fixture = try PresentedDirectory()
        defer { fixture.close() }
        let file = try fixture.tree.file("d/tagged.txt", contents: "x")
        try makeCoordinator().coordinate(writingItemAt: file, options: .contentIndependentMetadataOnly) { url in
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        }
        #expect(fixture.events(after: .subitemDidChange(file.path)) == [.subitemDidChange(file.path)])
    }

    @Test("a coordinated move within the directory: presentedSubitem(at:didMoveTo:) only")
    func move() throws {
        let fixture = try PresentedDirectory()
        defer { fixture.close() }
        let source = try fixture.tree.file("d/a.txt", contents: "x")
        let destination = fixture.directory.appendingPathComponent("b.txt")
        let coordinator = makeCoordinator()
        try coordinator.coordinate(
            writingItemAt: source, options: .forMoving, writingItemAt: destination, options: .forReplacing
        ) { from, to in
            try FileManager.default.moveItem(at: from, to: to)
            coordinator.item(at: from, didMoveTo: to)
        }
        let moved = RecordingPresenter.Event.subitemDidMove(source.path, destination.path)
        #expect(fixture.events(after: moved) == [moved])
    }

    @Test("a creation through the async API: presentedSubitemDidAppear")
    func asyncCreation() async throws {
        let fixture = try PresentedDirectory()
        defer { fixture.close() }
        let new = fixture.directory.appendingPathComponent("async.txt")
        try await makeCoordinator().coordinate(with: [.writingIntent(with: new, options: .forReplacing)]) { urls in
            try Data("v1".utf8).write(to: urls[0])
        }
        let events = try await offPool { fixture.events(after: .subitemDidAppear(new.path)) }
        #expect(events == [.subitemDidAppear(new.path)])
    }

    @Test("a file's presenter hears a .contentIndependentMetadataOnly write as presentedItemDidChange")
    func metadataOfAFile() throws {
        let fixture = try PresentedFile()
        defer { fixture.close() }
        try makeCoordinator().coordinate(writingItemAt: fixture.url, options: .contentIndependentMetadataOnly) { url in
            fixture.presenter.mark("chmod")
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        }
        #expect(fixture.presenter.waitFor(.reacquire))
        #expect(fixture.presenter.events == [.relinquishToWriter, .mark("chmod"), .didChange, .reacquire])
    }

    @Test("a package presenter that implements only presentedItemDidChange hears a write inside the package")
    func packageFallback() throws {
        try PackageExtensions.with("qnotice") {
            let tree = try TemporaryTree()
            defer { tree.remove() }
            let package = try tree.directory("doc.qnotice")
            let presenter = ChangeOnlyPresenter(url: package)
            FileCoordinator.addFilePresenter(presenter)
            defer { FileCoordinator.removeFilePresenter(presenter) }
            try makeCoordinator().coordinate(writingItemAt: package.appendingPathComponent("page.txt")) { url in
                try Data("v1".utf8).write(to: url)
            }
            #expect(presenter.changed.wait())
        }
    }

    @Test("a plain directory's presenter that implements only presentedItemDidChange hears nothing of its contents")
    func noFallbackForPlainDirectories() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let directory = try tree.directory("plain")
        let presenter = ChangeOnlyPresenter(url: directory)
        FileCoordinator.addFilePresenter(presenter)
        defer { FileCoordinator.removeFilePresenter(presenter) }
        try makeCoordinator().coordinate(writingItemAt: directory.appendingPathComponent("page.txt")) { url in
            try Data("v1".utf8).write(to: url)
        }
        #expect(!presenter.changed.wait(Bound.negative))
    }
}

/// A presenter written as for Apple platforms that cares only about the whole item: it implements
/// `presentedItemDidChange()` and none of the subitem methods.
final class ChangeOnlyPresenter: FilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue = OperationQueue()
    let changed = Signal()

    init(url: URL) { presentedItemURL = url }

    func presentedItemDidChange() { changed.signal() }
}
