import FileCoordination
import Foundation
import Testing

/// Nesting, cancellation and purpose identifiers (API checklist §7 items 7–11).
@Suite("Nesting, cancellation and purpose identifiers")
struct NestingAndCancellationTests {
    @Test("§7.7 a write inside a single-URL write accessor throws .invalidNesting; a read there works")
    func writeInsideWriteFailsReadWorks() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "before")
        let other = try tree.file("g.txt", contents: "other")
        let coordinator = makeCoordinator()
        let queued = Locked<BackgroundCall<Void>?>(nil)
        let outcome = BackgroundCall { () -> String in
            try coordinator.coordinate(writingItemAt: file) { url in
                let nestedWrites: [() throws -> Void] = [
                    { try coordinator.coordinate(writingItemAt: url) { _ in accessorMustNotRun() } },
                    { try coordinator.coordinate(writingItemAt: other) { _ in accessorMustNotRun() } },
                    {
                        try coordinator.coordinate(readingItemAt: other, writingItemAt: url) { _, _ in
                            accessorMustNotRun()
                        }
                    },
                ]
                for write in nestedWrites { #expect(isInvalidNesting(thrownError(write))) }
                try Data("after".utf8).write(to: url)
                // Another coordinator's read now waits for this write: the nested read must not queue behind it.
                let reader = BackgroundCall { try makeCoordinator().coordinate(readingItemAt: url) { _ in } }
                queued.value = reader
                #expect(reader.isStillRunning())
                return try coordinator.coordinate(readingItemAt: url) { inner in
                    try String(contentsOf: inner, encoding: .utf8)
                }
            }
        }
        #expect(try outcome.result()?.get() == "after")
        expectSuccess(try #require(queued.value))
    }

    enum TwoURLForm: String, CaseIterable, Sendable {
        case readingAndWriting, writingAndWriting
    }

    @Test(
        "§7.8 inside a read-write or write-write accessor an inner write is allowed and does not deadlock",
        arguments: TwoURLForm.allCases)
    func innerWriteInsideTwoURLAccessor(form: TwoURLForm) throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let source = try tree.file("source.txt", contents: "source")
        let destination = try tree.file("destination.txt", contents: "old")
        let coordinator = makeCoordinator()
        let inside = Gate()
        let outer = BackgroundCall { () -> String in
            let body: (URL, URL) throws -> String = { source, destination in
                inside.pass()
                let text = try String(contentsOf: source, encoding: .utf8)
                try coordinator.coordinate(writingItemAt: destination) { url in
                    try Data(text.utf8).write(to: url)
                }
                return try String(contentsOf: destination, encoding: .utf8)
            }
            switch form {
            case .readingAndWriting:
                return try coordinator.coordinate(
                    readingItemAt: source, writingItemAt: destination, byAccessor: body)
            case .writingAndWriting:
                return try coordinator.coordinate(
                    writingItemAt: source, writingItemAt: destination, byAccessor: body)
            }
        }
        #expect(inside.entered.wait())
        // Another coordinator queues a write of the destination behind the outer access: the inner write must
        // not queue behind it (that would deadlock).
        let queuedGate = Gate()
        let queued = BackgroundCall {
            try makeCoordinator().coordinate(writingItemAt: destination) { _ in queuedGate.pass() }
        }
        #expect(!queuedGate.entered.wait(Bound.negative))
        inside.release.signal()
        #expect(try outer.result()?.get() == "source")
        #expect(queuedGate.entered.wait())
        queuedGate.release.signal()
        expectSuccess(queued)
    }

    @Test("§7.9 cancel() while waiting: the call throws NSCocoaErrorDomain 3072 and the accessor never runs")
    func cancelWhileWaiting() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let holder = Gate()
        let holding = BackgroundCall { try makeCoordinator().coordinate(readingItemAt: file) { _ in holder.pass() } }
        #expect(holder.entered.wait())
        let waiter = makeCoordinator()
        let ran = Locked(false)
        let waiting = BackgroundCall { try waiter.coordinate(writingItemAt: file) { _ in ran.value = true } }
        #expect(waiting.isStillRunning())
        waiter.cancel()
        // The waiter stops waiting although the reader still holds the file.
        #expect(isUserCancelled(expectFailure(waiting)))
        #expect(!ran.value)
        holder.release.signal()
        expectSuccess(holding)
    }

    @Test("§7.9 cancel() during the accessor: the call returns only when the accessor finishes, and succeeds")
    func cancelDuringAccessor() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let coordinator = makeCoordinator()
        let gate = Gate()
        let call = BackgroundCall { () -> Int in
            try coordinator.coordinate(writingItemAt: file) { _ in
                gate.pass()
                return 42
            }
        }
        #expect(gate.entered.wait())
        coordinator.cancel()  // returns at once, the accessor is still running
        #expect(call.isStillRunning())
        gate.release.signal()
        #expect(try call.result()?.get() == 42)
    }

    @Test("§7.9 cancelling the task of the async form stops its wait with 3072; the accessor never runs")
    func taskCancellationWhileWaiting() async throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let holder = Gate()
        let holding = BackgroundCall { try makeCoordinator().coordinate(writingItemAt: file) { _ in holder.pass() } }
        #expect(holder.entered.wait())
        let task = Task {
            try await makeCoordinator().coordinate(with: [.readingIntent(with: file)]) { _ in accessorMustNotRun() }
        }
        #expect(holding.isStillRunning())  // gives the task time to start waiting
        task.cancel()
        do {
            try await task.value
            Issue.record("the cancelled wait did not throw")
        } catch {
            #expect(isUserCancelled(error))
        }
        holder.release.signal()
        expectSuccess(holding)
    }

    @Test("§7.10 cancel is sticky: every later call on the coordinator throws 3072 and never runs its accessor")
    func cancelIsSticky() async throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let other = try tree.file("g.txt", contents: "y")
        let coordinator = makeCoordinator()
        try coordinator.coordinate(readingItemAt: file) { _ in }
        coordinator.cancel()

        let synchronousCalls: [() throws -> Void] = [
            { try coordinator.coordinate(readingItemAt: file) { _ in accessorMustNotRun() } },
            { try coordinator.coordinate(writingItemAt: file) { _ in accessorMustNotRun() } },
            { try coordinator.coordinate(readingItemAt: file, writingItemAt: other) { _, _ in accessorMustNotRun() } },
            { try coordinator.coordinate(writingItemAt: file, writingItemAt: other) { _, _ in accessorMustNotRun() } },
            {
                try coordinator.prepare(forReadingItemsAt: [file], writingItemsAt: [other]) { done in
                    accessorMustNotRun()
                    done()
                }
            },
        ]
        for call in synchronousCalls { #expect(isUserCancelled(thrownError(call))) }
        do {
            _ = try await coordinator.coordinate(with: [.readingIntent(with: file)]) { _ in accessorMustNotRun() }
            Issue.record("the async form did not throw")
        } catch {
            #expect(isUserCancelled(error))
        }
        let queue = OperationQueue()
        let reported = Locked<(any Error)?>(nil)
        let done = Signal()
        coordinator.coordinate(with: [.writingIntent(with: file)], queue: queue) { error in
            reported.value = error
            done.signal()
        }
        #expect(done.wait())
        #expect(isUserCancelled(reported.value))
    }

    @Test("§7.11 purposeIdentifier can be set once to a non-empty value on a coordinator made without a presenter")
    func purposeIdentifierAllowedPath() throws {
        let coordinator = FileCoordinator()
        let unique = coordinator.purposeIdentifier
        #expect(!unique.isEmpty)
        #expect(FileCoordinator().purposeIdentifier != unique)
        coordinator.purposeIdentifier = "quire-tests-purpose"
        #expect(coordinator.purposeIdentifier == "quire-tests-purpose")
        let presenter = RecordingPresenter(url: nil)
        #expect(
            FileCoordinator(filePresenter: presenter).purposeIdentifier
                == FileCoordinator(filePresenter: presenter).purposeIdentifier)
    }

    @Test("§7.11 setting purposeIdentifier twice, to \"\", or on a coordinator made with a presenter traps")
    func purposeIdentifierViolationsTrap() async throws {
        await #expect(processExitsWith: .failure) {
            let coordinator = FileCoordinator()
            coordinator.purposeIdentifier = "first"
            coordinator.purposeIdentifier = "second"
        }
        await #expect(processExitsWith: .failure) {
            FileCoordinator().purposeIdentifier = ""
        }
        await #expect(processExitsWith: .failure) {
            final class Presenter: FilePresenter {
                let presentedItemURL: URL? = nil
                let presentedItemOperationQueue = OperationQueue()
            }
            FileCoordinator(filePresenter: Presenter()).purposeIdentifier = "mine"
        }
    }
}
