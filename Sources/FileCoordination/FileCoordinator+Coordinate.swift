import CoordinationArbiter
import Foundation

extension FileCoordinator {
    /// Reads an item in coordination: waits for writers, has presenters relinquish it (and save first unless
    /// `.withoutChanges`), then calls `reader` with the item's URL (where it is now, if it moved). With
    /// `.forUploading`, `reader` gets a temporary snapshot instead and writers may proceed while it runs (see
    /// ``ReadingOptions/forUploading``).
    /// - Returns: what `reader` returns.
    /// - Throws: ``FileCoordinationError`` (`.notAFileURL`, `.timedOut`, `.snapshotFailed`),
    ///   `CocoaError(.userCancelled)` after ``cancel()``, a presenter's error (in these cases `reader` does not
    ///   run), or whatever `reader` throws.
    @discardableResult
    public func coordinate<T>(
        readingItemAt url: URL, options: ReadingOptions = [], byAccessor reader: (URL) throws -> T
    ) throws -> T {
        let targets = [try target(url, .reading(AccessIntent.ReadingOptions(rawValue: options.rawValue)))]
        return try coordinateSynchronously(targets, isSingleWrite: false) { try reader($0[0]) }
    }

    /// Writes an item in coordination: waits for readers and writers, has presenters relinquish it (and
    /// accommodate a deletion or save first, per `options`), calls `writer`, then tells presenters.
    /// - Returns: what `writer` returns.
    /// - Throws: as ``coordinate(readingItemAt:options:byAccessor:)``, and
    ///   ``FileCoordinationError/invalidNesting`` when called inside the accessor of a single-URL write.
    @discardableResult
    public func coordinate<T>(
        writingItemAt url: URL, options: WritingOptions = [], byAccessor writer: (URL) throws -> T
    ) throws -> T {
        let targets = [try target(url, .writing(AccessIntent.WritingOptions(rawValue: options.rawValue)))]
        return try coordinateSynchronously(targets, isSingleWrite: true) { try writer($0[0]) }
    }

    /// Reads one item and writes another in one coordinated access (both are acquired together, so there is
    /// no lock-ordering deadlock); `readerWriter` may coordinate further writes inside.
    /// - Throws: as ``coordinate(readingItemAt:options:byAccessor:)``.
    @discardableResult
    public func coordinate<T>(
        readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [],
        writingItemAt writingURL: URL, options writingOptions: WritingOptions = [],
        byAccessor readerWriter: (URL, URL) throws -> T
    ) throws -> T {
        let targets = [
            try target(readingURL, .reading(AccessIntent.ReadingOptions(rawValue: readingOptions.rawValue))),
            try target(writingURL, .writing(AccessIntent.WritingOptions(rawValue: writingOptions.rawValue))),
        ]
        return try coordinateSynchronously(targets, isSingleWrite: false) { try readerWriter($0[0], $0[1]) }
    }

    /// Writes two items in one coordinated access (for a move: the source `.forMoving`, the destination
    /// `.forReplacing`); `writer` may coordinate further writes inside.
    /// - Throws: as ``coordinate(writingItemAt:options:byAccessor:)``.
    @discardableResult
    public func coordinate<T>(
        writingItemAt url1: URL, options options1: WritingOptions = [],
        writingItemAt url2: URL, options options2: WritingOptions = [],
        byAccessor writer: (URL, URL) throws -> T
    ) throws -> T {
        let targets = [
            try target(url1, .writing(AccessIntent.WritingOptions(rawValue: options1.rawValue))),
            try target(url2, .writing(AccessIntent.WritingOptions(rawValue: options2.rawValue))),
        ]
        return try coordinateSynchronously(targets, isSingleWrite: false) { try writer($0[0], $0[1]) }
    }

    /// Prepares a batch: presenters of every listed item (and of everything inside) are messaged once, as for
    /// one coordinated access to all of them; then `batchAccessor` runs and must call the block it is given
    /// (from any thread) when the batch is over. The batch does not itself grant access to the files: call the
    /// individual `coordinate` methods inside it (they never wait for the batch, which shares this
    /// coordinator's purpose). Until the completion block is called, other coordinators' conflicting accesses
    /// wait. `.resolvesSymbolicLink` and `.forReplacing` are ignored here, as Apple documents them as invalid.
    /// - Throws: as ``coordinate(readingItemAt:options:byAccessor:)``; `batchAccessor` then does not run.
    public func prepare(
        forReadingItemsAt readingURLs: [URL], options readingOptions: ReadingOptions = [],
        writingItemsAt writingURLs: [URL], options writingOptions: WritingOptions = [],
        byAccessor batchAccessor: (@escaping @Sendable () -> Void) -> Void
    ) throws {
        let reading = AccessIntent.ReadingOptions(rawValue: readingOptions.subtracting(.resolvesSymbolicLink).rawValue)
        let writing = AccessIntent.WritingOptions(rawValue: writingOptions.subtracting(.forReplacing).rawValue)
        // Every listed item's contents too (Apple: "the top-level items and everything they contain"); this
        // widens the presenter round only: a read of a directory still leaves its contents to others.
        let targets =
            try readingURLs.map { try target($0, .reading(reading), includesContents: true) }
            + writingURLs.map { try target($0, .writing(writing), includesContents: true) }
        let waiter = AccessWaiter.acquire()
        let request = submit(
            targets, nestedIn: AccessFrames.current.innermost(of: ObjectIdentifier(self)), to: .waiter(waiter))
        _ = try client.outcome(of: waiter).get()
        guard let request else { return batchAccessor({}) }
        // The batch writes nothing itself: the accesses inside it report what they write.
        _ = takesPresence(request)
        openBatch(request)
        let completion = BatchCompletion { [self] in
            closeBatch(request)
            end(request)
        }
        batchAccessor { completion.complete() }
    }
}

/// Runs a batch's ending once, however often its completion block is called.
final class BatchCompletion: @unchecked Sendable {
    private var body: (() -> Void)?
    private let lock = NSLock()

    init(_ body: @escaping () -> Void) { self.body = body }

    func complete() {
        let run = lock.withLock { () -> (() -> Void)? in
            defer { body = nil }
            return body
        }
        run?()
    }
}
