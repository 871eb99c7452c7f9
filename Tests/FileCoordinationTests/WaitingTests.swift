import FileCoordination
import Foundation
import Testing

/// Who waits for whom (API checklist §7 items 1–6).
@Suite("Who waits for whom")
struct WaitingTests {
    @Test("§7.1 two reads of a file from different coordinators overlap")
    func readsOverlap() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        expectOverlap(
            { inside in try makeCoordinator().coordinate(readingItemAt: file) { _ in inside() } },
            with: { inside in try makeCoordinator().coordinate(readingItemAt: file) { _ in inside() } })
    }

    enum Kind: String, CaseIterable, Sendable {
        case read, write
    }

    @Test(
        "§7.2 a write waits for a running read, a read for a running write, a write for a running write",
        arguments: [(Kind.read, Kind.write), (.write, .read), (.write, .write)])
    func conflictingAccessWaits(first: Kind, second: Kind) throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        @Sendable func access(_ kind: Kind) -> Access {
            { inside in
                switch kind {
                case .read: try makeCoordinator().coordinate(readingItemAt: file) { _ in inside() }
                case .write: try makeCoordinator().coordinate(writingItemAt: file) { _ in inside() }
                }
            }
        }
        expectWaits(access(second), for: access(first))
    }

    enum Sharing: String, CaseIterable, Sendable {
        case sameCoordinator, samePresenter, samePurposeIdentifier
    }

    @Test(
        "§7.3 the same coordinator, coordinators made with the same presenter, or with the same purpose never block",
        arguments: Sharing.allCases)
    func sharedPurposeNeverBlocks(sharing: Sharing) throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let first: FileCoordinator
        let second: FileCoordinator
        switch sharing {
        case .sameCoordinator:
            first = makeCoordinator()
            second = first
        case .samePresenter:
            let presenter = RecordingPresenter(url: file)
            first = makeCoordinator(filePresenter: presenter)
            second = makeCoordinator(filePresenter: presenter)
            #expect(first.purposeIdentifier == second.purposeIdentifier)
        case .samePurposeIdentifier:
            first = makeCoordinator()
            second = makeCoordinator()
            let purpose = "quire-tests-" + UUID().uuidString
            first.purposeIdentifier = purpose
            second.purposeIdentifier = purpose
        }
        // Write against write is the strictest conflict: it must not apply.
        expectOverlap(
            { inside in try second.coordinate(writingItemAt: file) { _ in inside() } },
            with: { inside in try first.coordinate(writingItemAt: file) { _ in inside() } })
    }

    @Test("§7.4 a plain write of a directory does not wait for a running write inside it")
    func plainDirectoryWriteLeavesContentsAlone() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let directory = try tree.directory("D")
        let child = try tree.file("D/child.txt", contents: "x")
        expectOverlap(
            { inside in try makeCoordinator().coordinate(writingItemAt: directory) { _ in inside() } },
            with: { inside in try makeCoordinator().coordinate(writingItemAt: child) { _ in inside() } })
    }

    @Test(
        "§7.4 a .forDeleting/.forMoving/.forReplacing write of a directory waits for its contents and blocks them",
        arguments: [
            ("forDeleting", FileCoordinator.WritingOptions.forDeleting), ("forMoving", .forMoving),
            ("forReplacing", .forReplacing),
        ])
    func excludingDirectoryWriteWaitsForContents(name: String, options: FileCoordinator.WritingOptions) throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let directory = try tree.directory("D")
        let child = try tree.file("D/child.txt", contents: "x")
        let directoryWrite: Access = { inside in
            try makeCoordinator().coordinate(writingItemAt: directory, options: options) { _ in inside() }
        }
        let childWrite: Access = { inside in
            try makeCoordinator().coordinate(writingItemAt: child) { _ in inside() }
        }
        expectWaits(directoryWrite, for: childWrite)
        expectWaits(childWrite, for: directoryWrite)
    }

    @Test("§7.5 a write of a file inside a file package waits for a read of another file in the package")
    func filePackageIsOneItem() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let first = try tree.file("Doc.q5pkg/a.txt", contents: "a")
        let second = try tree.file("Doc.q5pkg/b.txt", contents: "b")
        let outside = try tree.file("c.txt", contents: "c")
        PackageExtensions.with("q5pkg") {
            expectWaits(
                { inside in try makeCoordinator().coordinate(writingItemAt: second) { _ in inside() } },
                for: { inside in try makeCoordinator().coordinate(readingItemAt: first) { _ in inside() } })
            // Outside the package, files are separate items again.
            expectOverlap(
                { inside in try makeCoordinator().coordinate(writingItemAt: outside) { _ in inside() } },
                with: { inside in try makeCoordinator().coordinate(readingItemAt: first) { _ in inside() } })
        }
    }

    @Test(
        "§7.6 (in-process analogue) a write waits for a read; the reader's presenter relinquishes to it before it runs"
    )
    func writerWaitsAndPresenterRelinquishesFirst() throws {
        let fixture = try PresentedFile()
        defer { fixture.close() }
        let (file, presenter) = (fixture.url, fixture.presenter)
        let reader = makeCoordinator(filePresenter: presenter)
        let writerEvents = Locked<[RecordingPresenter.Event]?>(nil)
        expectWaits(
            { inside in
                try makeCoordinator().coordinate(writingItemAt: file) { _ in
                    writerEvents.value = presenter.events
                    inside()
                }
            },
            for: { inside in try reader.coordinate(readingItemAt: file) { _ in inside() } })
        #expect(writerEvents.value == [.relinquishToWriter])
        #expect(presenter.waitFor(.reacquire))
        #expect(presenter.events == [.relinquishToWriter, .didChange, .reacquire])
        #expect(presenter.eventsOffQueue.isEmpty)
    }
}
