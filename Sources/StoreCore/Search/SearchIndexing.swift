import Synchronization

/// The executor of a library's ``IndexingQueue``: takes changes from any thread, under its lock, and wakes the
/// library's indexing loop (``DocumentLibrary/runIndexing()``), which starts what the queue says outside it.
final class SearchIndexing: Sendable {
    private let queue: Mutex<IndexingQueue<ContinuousClock.Instant>>
    private let wake = Mutex<AsyncStream<Void>.Continuation?>(nil)

    /// An executor indexing at most `concurrency` documents at once.
    init(concurrency: Int) {
        queue = Mutex(IndexingQueue(concurrency: concurrency))
    }

    /// Document `id` changed (or the catch-up found it behind): it waits for its turn.
    func changed(_ id: DocumentID) {
        let now = ContinuousClock.now
        queue.withLock { $0.changed(id.rawValue, now: now) }
        wake.withLock { $0 }?.yield()
    }

    /// The next document to index now, if any.
    func next() -> DocumentID? {
        queue.withLock { $0.next() }.flatMap(DocumentID.init(rawValue:))
    }

    /// Document `id`'s indexing ended.
    func finished(_ id: DocumentID) {
        queue.withLock { $0.finished(id.rawValue) }
        wake.withLock { $0 }?.yield()
    }

    /// How many documents wait, and since when the oldest does.
    var waiting: (count: Int, oldest: ContinuousClock.Instant?) {
        queue.withLock { ($0.waitingCount, $0.oldestWait) }
    }

    /// How many documents are being indexed.
    var runningCount: Int { queue.withLock { $0.running.count } }

    /// The wake-ups of the indexing loop: one stream at a time (a later call replaces the earlier one's).
    func wakeUps() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        wake.withLock { $0 = continuation }
        continuation.yield()
        return stream
    }
}
