import FileCoordination
import Foundation
import Testing

/// Access intents and batches (API checklist §7 items 12–13).
@Suite("Intents and batches")
struct IntentsAndBatchTests {
    @Test("§7.12 coordinate(with:queue:) runs on the queue with nil, intents follow a move, .forReplacing does not")
    func intentsOnQueueFollowMoves() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let original = try tree.file("original.txt", contents: "x")
        let moved = tree.url("moved.txt")

        // A mover holds the file while the intents are submitted, then renames it.
        let mover = makeCoordinator()
        let moving = Gate()
        let move = BackgroundCall {
            try mover.coordinate(writingItemAt: original, options: .forMoving) { url in
                moving.pass()
                try FileManager.default.moveItem(at: url, to: moved)
                mover.item(at: url, didMoveTo: moved)
            }
        }
        #expect(moving.entered.wait())

        struct Granted: Sendable {
            let error: (any Error)?
            let onQueue: Bool
            let url: URL
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let reading = FileAccessIntent.readingIntent(with: original)
        let replacing = FileAccessIntent.writingIntent(with: original, options: .forReplacing)
        let readGrant = Locked<Granted?>(nil)
        let replaceGrant = Locked<Granted?>(nil)
        let bothGranted = Signal()
        makeCoordinator().coordinate(with: [reading], queue: queue) { error in
            readGrant.value = Granted(error: error, onQueue: OperationQueue.current === queue, url: reading.url)
            bothGranted.signal()
        }
        makeCoordinator().coordinate(with: [replacing], queue: queue) { error in
            replaceGrant.value = Granted(error: error, onQueue: OperationQueue.current === queue, url: replacing.url)
            bothGranted.signal()
        }
        // Both wait for the mover.
        #expect(!bothGranted.wait(Bound.negative))
        moving.release.signal()
        expectSuccess(move)
        #expect(bothGranted.wait())
        #expect(bothGranted.wait())

        let read = try #require(readGrant.value)
        #expect(read.error == nil)
        #expect(read.onQueue)
        #expect(path(read.url) == path(moved))
        let replace = try #require(replaceGrant.value)
        #expect(replace.error == nil)
        #expect(replace.onQueue)
        #expect(path(replace.url) == path(original))
    }

    @Test("coordinate(with:queue:) ends the access when the accessor returns, even before the call itself returns")
    func queueFormEndsAccessGrantedAtOnce() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        // A queue that runs the accessor at once, on the calling thread: the access is granted and the accessor
        // has returned before coordinate(with:queue:) returns (a concurrent queue does the same, by chance).
        let queue = InlineOperationQueue()
        let errors = Locked<[(any Error)?]>([])
        let called = Signal()
        for _ in 0..<3 {
            makeCoordinator().coordinate(with: [.writingIntent(with: file)], queue: queue) { error in
                errors.withLock { $0.append(error) }
                called.signal()
            }
            #expect(called.wait())
        }
        #expect(errors.value.count == 3 && errors.value.allSatisfy { $0 == nil })
        let probe = FileCoordinator()
        probe.timeout = .seconds(2)
        #expect(throws: Never.self) { try probe.coordinate(writingItemAt: file) { _ in } }
    }

    @Test(
        "§7.12 a waiting intent that follows a move keeps waiting until the mover's accessor returns",
        arguments: [false, true])
    func movedWaiterStillWaitsForMover(movesDirectory: Bool) throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let item = movesDirectory ? try tree.directory("S") : try tree.file("f.txt", contents: "x")
        let destination = tree.url(movesDirectory ? "T" : "g.txt")
        let waitedFor = movesDirectory ? item.appendingPathComponent("inside.txt") : item
        if movesDirectory { try tree.file("S/inside.txt", contents: "x") }

        let mover = makeCoordinator()
        let beforeMove = Gate()
        let afterMove = Gate()
        let move = BackgroundCall {
            try mover.coordinate(writingItemAt: item, options: .forMoving) { url in
                beforeMove.pass()
                try FileManager.default.moveItem(at: url, to: destination)
                mover.item(at: url, didMoveTo: destination)
                afterMove.pass()
            }
        }
        #expect(beforeMove.entered.wait())
        let waiterGate = Gate()
        let grantedURL = Locked<URL?>(nil)
        let waiter = BackgroundCall {
            try makeCoordinator().coordinate(writingItemAt: waitedFor) { url in
                grantedURL.value = url
                waiterGate.pass()
            }
        }
        #expect(!waiterGate.entered.wait(Bound.negative))
        beforeMove.release.signal()
        #expect(afterMove.entered.wait())
        // The mover has moved the item but is still in its accessor: the waiter must still wait.
        #expect(!waiterGate.entered.wait(Bound.negative))
        afterMove.release.signal()
        #expect(waiterGate.entered.wait())
        waiterGate.release.signal()
        expectSuccess(move)
        expectSuccess(waiter)
        let expected = movesDirectory ? destination.appendingPathComponent("inside.txt") : destination
        #expect(path(try #require(grantedURL.value)) == path(expected))
    }

    @Test("§7.13 prepare messages each presenter of the items and of their contents once, then runs the batch")
    func prepareMessagesOnce() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let directory = try tree.directory("D")
        let inner = try tree.file("D/inner.txt", contents: "inner")
        let single = try tree.file("single.txt", contents: "single")
        let directoryPresenter = RecordingPresenter.registered(at: directory, name: "D")
        let innerPresenter = RecordingPresenter.registered(at: inner, name: "D/inner")
        let singlePresenter = RecordingPresenter.registered(at: single, name: "single")
        let presenters = [directoryPresenter, innerPresenter, singlePresenter]
        defer { presenters.forEach(FileCoordinator.removeFilePresenter) }

        let coordinator = makeCoordinator()
        let seenInBatch = Locked<[[RecordingPresenter.Event]]>([])
        let release = Signal()
        let batchRan = Signal()
        let batch = BackgroundCall {
            // The inner file is read directly and inside the moved directory: one relinquish to the writer.
            try coordinator.prepare(
                forReadingItemsAt: [single, inner, single], options: [], writingItemsAt: [directory],
                options: .forMoving
            ) { completion in
                seenInBatch.value = presenters.map(\.events)
                batchRan.signal()
                // The completion block may be called from any thread, after prepare has returned.
                Thread {
                    _ = release.wait()
                    completion()
                }.start()
            }
        }
        #expect(batchRan.wait())
        expectSuccess(batch)  // prepare returns; the batch lasts until its completion block is called
        #expect(
            seenInBatch.value == [[.relinquishToWriter], [.relinquishToWriter, .save], [.relinquishToReader, .save]])

        // Until the completion block is called, conflicting accesses of other coordinators wait.
        let blockedGate = Gate()
        let blocked = BackgroundCall {
            try makeCoordinator().coordinate(writingItemAt: inner) { _ in blockedGate.pass() }
        }
        #expect(!blockedGate.entered.wait(Bound.negative))
        release.signal()
        #expect(blockedGate.entered.wait())
        blockedGate.release.signal()
        expectSuccess(blocked)
        for presenter in presenters { #expect(presenter.waitFor(.reacquire)) }
    }

    @Test("§7.13 calls nested in a batch still coordinate: they wait for other coordinators")
    func nestedCallsInBatchCoordinate() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let listed = try tree.file("listed.txt", contents: "listed")
        let other = try tree.file("other.txt", contents: "other")
        let holder = Gate()
        let holding = BackgroundCall { try makeCoordinator().coordinate(writingItemAt: other) { _ in holder.pass() } }
        #expect(holder.entered.wait())

        let coordinator = makeCoordinator()
        let nestedEntered = Signal()
        let batchDone = Signal()
        let batch = BackgroundCall {
            try coordinator.prepare(forReadingItemsAt: [listed], writingItemsAt: []) { completion in
                do {
                    try coordinator.coordinate(readingItemAt: listed) { _ in }
                    try coordinator.coordinate(writingItemAt: other) { _ in nestedEntered.signal() }
                } catch {
                    Issue.record("a call nested in the batch failed: \(error)")
                }
                completion()
                batchDone.signal()
            }
        }
        #expect(!nestedEntered.wait(Bound.negative))
        holder.release.signal()
        #expect(nestedEntered.wait())
        #expect(batchDone.wait())
        expectSuccess(holding)
        expectSuccess(batch)
    }

    @Test("§7.13 prepare for reading a directory also messages the presenters of the items inside it")
    func prepareMessagesContentsOfReadDirectory() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let directory = try tree.directory("D")
        let inner = try tree.file("D/inner.txt", contents: "inner")
        let directoryPresenter = RecordingPresenter.registered(at: directory, name: "D")
        let innerPresenter = RecordingPresenter.registered(at: inner, name: "D/inner")
        defer { [directoryPresenter, innerPresenter].forEach(FileCoordinator.removeFilePresenter) }

        let seen = Locked<[RecordingPresenter.Event]>([])
        try makeCoordinator().prepare(forReadingItemsAt: [directory], writingItemsAt: []) { completion in
            seen.value = innerPresenter.events
            completion()
        }
        #expect(directoryPresenter.waitFor(.reacquire))
        #expect(directoryPresenter.events == [.relinquishToReader, .save, .reacquire])
        #expect(seen.value == [.relinquishToReader, .save])
        #expect(innerPresenter.waitFor(.reacquire))
        #expect(innerPresenter.events == [.relinquishToReader, .save, .reacquire])
    }

    @Test("§7.13 a batch that reads a directory leaves its contents to other coordinators' writes")
    func prepareReadingDirectoryDoesNotExcludeItsContents() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let directory = try tree.directory("D")
        let inner = try tree.file("D/inner.txt", contents: "inner")
        let release = Signal()
        let batchRan = Signal()
        let batch = BackgroundCall {
            try makeCoordinator().prepare(forReadingItemsAt: [directory], writingItemsAt: []) { completion in
                batchRan.signal()
                _ = release.wait()
                completion()
            }
        }
        #expect(batchRan.wait())
        // While the batch lasts, a write inside the directory goes ahead; a write of the directory waits.
        let probe = makeCoordinator()
        probe.timeout = .seconds(2)
        #expect(throws: Never.self) { try probe.coordinate(writingItemAt: inner) { _ in } }
        let directoryGate = Gate()
        let directoryWrite = BackgroundCall {
            try makeCoordinator().coordinate(writingItemAt: directory) { _ in directoryGate.pass() }
        }
        #expect(!directoryGate.entered.wait(Bound.negative))
        release.signal()
        #expect(directoryGate.entered.wait())
        directoryGate.release.signal()
        expectSuccess(batch)
        expectSuccess(directoryWrite)
    }
}

/// An operation queue that runs every block at once on the thread that adds it.
final class InlineOperationQueue: OperationQueue, @unchecked Sendable {
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}
