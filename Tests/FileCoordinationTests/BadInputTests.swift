import FileCoordination
import Foundation
import Testing

/// Bad input and stuck peers give typed errors, never a hang (API checklist §7 item 25, and more).
@Suite("Bad input")
struct BadInputTests {
    static let nonFileURLs = [
        URL(string: "https://example.com/document.pdf")!, URL(string: "/tmp/not-a-file-url.txt")!,
        URL(string: "relative/path.txt")!,
    ]

    @Test("§7.25 a non-file URL throws .notAFileURL from every synchronous form", arguments: nonFileURLs)
    func nonFileURLSynchronous(url: URL) throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let coordinator = makeCoordinator()
        let calls: [() throws -> Void] = [
            { try coordinator.coordinate(readingItemAt: url) { _ in accessorMustNotRun() } },
            { try coordinator.coordinate(writingItemAt: url) { _ in accessorMustNotRun() } },
            { try coordinator.coordinate(readingItemAt: file, writingItemAt: url) { _, _ in accessorMustNotRun() } },
            { try coordinator.coordinate(writingItemAt: url, writingItemAt: file) { _, _ in accessorMustNotRun() } },
            {
                try coordinator.prepare(forReadingItemsAt: [file], writingItemsAt: [url]) { completion in
                    accessorMustNotRun()
                    completion()
                }
            },
        ]
        for call in calls { #expect(isNotAFileURL(thrownError(call), url)) }
        // Nothing was left behind: the file is free for another coordinator.
        try makeCoordinator().coordinate(writingItemAt: file) { _ in }
    }

    @Test(
        "a non-file URL in an intent list throws .notAFileURL (async form) or reports it to the accessor (queue form)")
    func nonFileURLInIntents() async throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let url = URL(string: "https://example.com/document.pdf")!
        do {
            _ = try await makeCoordinator().coordinate(
                with: [.readingIntent(with: file), .writingIntent(with: url)]
            ) { _ in accessorMustNotRun() }
            Issue.record("the async form did not throw")
        } catch {
            #expect(isNotAFileURL(error, url))
        }
        let queue = OperationQueue()
        let reported = Locked<(any Error)?>(nil)
        let called = Signal()
        let intents = [FileAccessIntent.writingIntent(with: file), .readingIntent(with: url)]
        makeCoordinator().coordinate(with: intents, queue: queue) { error in
            reported.value = error
            called.signal()
        }
        #expect(called.wait())
        #expect(isNotAFileURL(reported.value, url))
    }

    @Test("relative paths are made absolute: relative and absolute URLs of one file conflict")
    func relativePathsAreAbsolute() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("sub/f.txt", contents: "x")
        // Relative to the current directory (where `swift test` runs), to a base URL, and with . and ..:
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).resolvingSymlinksInPath()
        let upwards = Array(repeating: "..", count: current.pathComponents.count - 1).joined(separator: "/")
        let relativeToCurrent = URL(fileURLWithPath: upwards + file.path)
        let relativePathURL = try #require(URL(string: "file:" + upwards + file.path))  // its .path stays relative
        #expect(relativePathURL.isFileURL && !relativePathURL.path.hasPrefix("/"))
        let relativeToBase = URL(fileURLWithPath: "sub/f.txt", relativeTo: tree.root)
        let dotted = URL(fileURLWithPath: tree.root.path + "/./sub/../sub/./f.txt")
        for spelling in [relativeToCurrent, relativePathURL, relativeToBase, dotted] {
            expectWaits(
                { inside in try makeCoordinator().coordinate(writingItemAt: spelling) { _ in inside() } },
                for: { inside in try makeCoordinator().coordinate(readingItemAt: file) { _ in inside() } })
            expectWaits(
                { inside in try makeCoordinator().coordinate(writingItemAt: file) { _ in inside() } },
                for: { inside in try makeCoordinator().coordinate(readingItemAt: spelling) { _ in inside() } })
        }
    }

    @Test("a URL under a symlinked directory is the same item as its resolved path")
    func symlinkedDirectoryIsResolved() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let real = try tree.file("real/f.txt", contents: "x")
        try FileManager.default.createSymbolicLink(at: tree.url("link"), withDestinationURL: tree.url("real"))
        let linked = tree.url("link/f.txt")
        expectWaits(
            { inside in try makeCoordinator().coordinate(writingItemAt: linked) { _ in inside() } },
            for: { inside in try makeCoordinator().coordinate(readingItemAt: real) { _ in inside() } })
        expectWaits(
            { inside in try makeCoordinator().coordinate(writingItemAt: real) { _ in inside() } },
            for: { inside in try makeCoordinator().coordinate(readingItemAt: linked) { _ in inside() } })
        // Presenters registered through the link hear about writes through the real path.
        let presenter = RecordingPresenter.registered(at: linked)
        defer { FileCoordinator.removeFilePresenter(presenter) }
        try makeCoordinator().coordinate(writingItemAt: real) { _ in }
        #expect(presenter.waitFor(.reacquire))
        #expect(presenter.events == [.relinquishToWriter, .didChange, .reacquire])
    }

    @Test("a directory renamed and replaced by a symlink to its new name resolves to the new name")
    func directoryReplacedBySymlink() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let viaOldName = try tree.file("old/f.txt", contents: "x")
        // Resolve the parent once, as any access does.
        try makeCoordinator().coordinate(readingItemAt: viaOldName) { _ in }
        try FileManager.default.moveItem(at: tree.url("old"), to: tree.url("new"))
        try FileManager.default.createSymbolicLink(at: tree.url("old"), withDestinationURL: tree.url("new"))
        let viaNewName = tree.url("new/f.txt")
        expectWaits(
            { inside in try makeCoordinator().coordinate(writingItemAt: viaOldName) { _ in inside() } },
            for: { inside in try makeCoordinator().coordinate(readingItemAt: viaNewName) { _ in inside() } })
    }

    @Test("an empty intent list is a no-op that still calls the accessor (queue form and async form)")
    func emptyIntentList() async throws {
        let queue = OperationQueue()
        let reported = Locked<(any Error)??>(nil)
        let called = Signal()
        makeCoordinator().coordinate(with: [], queue: queue) { error in
            reported.value = .some(error)
            called.signal()
        }
        #expect(called.wait())
        let error = try #require(reported.value)
        #expect(error == nil)

        let result = try await makeCoordinator().coordinate(with: []) { urls in
            #expect(urls.isEmpty)
            return 7
        }
        #expect(result == 7)
    }

    @Test("a write coordinated by another coordinator inside a single-URL write accessor throws, never deadlocks")
    func nestedWriteOfAnotherCoordinatorThrows() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let call = BackgroundCall { () -> (any Error)? in
            try makeCoordinator().coordinate(writingItemAt: file) { url in
                thrownError { try makeCoordinator().coordinate(writingItemAt: url) { _ in accessorMustNotRun() } }
            }
        }
        let outcome = try #require(call.result(), "the nested write deadlocked")
        #expect(isInvalidNesting(try outcome.get()))
    }

    @Test("a presenter that never relinquishes makes the waiter time out; the next coordinator still works")
    func timeoutOnSilentPresenter() throws {
        let fixture = try PresentedFile()
        defer { fixture.close() }
        let (file, presenter) = (fixture.url, fixture.presenter)
        presenter.relinquish(.hold)

        let coordinator = FileCoordinator()
        coordinator.timeout = .milliseconds(300)
        let started = ContinuousClock.now
        let error = thrownError { try coordinator.coordinate(writingItemAt: file) { _ in accessorMustNotRun() } }
        let waited = ContinuousClock.now - started
        #expect(isTimedOut(error, file))
        #expect(waited >= .milliseconds(300))
        #expect(waited < .seconds(Int64(Bound.positive)))

        // The arbiter let go of the timed-out request: once the presenter answers again, others get in.
        #expect(presenter.waitFor(.relinquishToWriter))  // the message may arrive after the timeout
        presenter.relinquish(.immediately)
        try makeCoordinator().coordinate(writingItemAt: file) { url in try Data("y".utf8).write(to: url) }
        #expect(
            try makeCoordinator().coordinate(readingItemAt: file) { try String(contentsOf: $0, encoding: .utf8) } == "y"
        )
        // The stale relinquish block, called late, is harmless.
        #expect(presenter.releaseHeldRelinquish() == 1)
    }

    @Test("a waiter behind an access that is never released times out; the item is free once it is released")
    func timeoutBehindHeldAccess() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let holder = Gate()
        let holding = BackgroundCall { try makeCoordinator().coordinate(writingItemAt: file) { _ in holder.pass() } }
        #expect(holder.entered.wait())
        let coordinator = FileCoordinator()
        coordinator.timeout = .milliseconds(200)
        #expect(
            isTimedOut(
                thrownError { try coordinator.coordinate(readingItemAt: file) { _ in accessorMustNotRun() } }, file))
        holder.release.signal()
        expectSuccess(holding)
        try makeCoordinator().coordinate(readingItemAt: file) { _ in }
    }
}
