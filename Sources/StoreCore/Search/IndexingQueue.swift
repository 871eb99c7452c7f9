/// Which documents the search index must read again, and which to read next: a pure state machine (no clock, no
/// lock, no I/O: `now` is passed in), driven by ``SearchIndexing``.
///
/// A document changed is waiting (once, however often it changes before its turn, since its first change);
/// documents are taken first come first served, at most ``concurrency`` at a time, never one twice at once; a
/// document that changes while it is being indexed waits again when that indexing finishes (the version read
/// may be older than the change), ahead of the others: it has waited longest.
///
/// Every operation costs the same whatever the backlog (a store filled faster than its text is extracted keeps
/// a hundred thousand documents waiting): ``oldestWait`` looks at the head of the queue and at the few documents
/// that changed while being indexed (at most about ``concurrency``), never at every waiting document.
struct IndexingQueue<Instant: Comparable & Sendable> {
    /// How many documents may be indexed at once.
    let concurrency: Int

    /// Waiting documents, oldest first, and since when each waits.
    private var waiting: [String] = []
    private var waitingSince: [String: Instant] = [:]
    /// Where ``waiting`` really starts (taken entries are skipped, not removed one by one).
    private var head = 0
    /// Documents being indexed.
    private(set) var running: Set<String> = []
    /// Documents that changed while being indexed, and since when.
    private var again: [String: Instant] = [:]
    /// Documents that changed while being indexed and whose indexing ended: taken before ``waiting`` (each waits
    /// since before the documents there that arrived during its indexing). At most about ``concurrency`` of them:
    /// an indexing that ends leaves a free place that takes one.
    private var requeued: [String] = []

    /// A queue that indexes at most `concurrency` documents at once.
    init(concurrency: Int) {
        self.concurrency = max(1, concurrency)
    }

    /// Documents waiting.
    var waitingCount: Int { waitingSince.count + again.count }

    /// Since when the document that waits longest waits, nil when none does: the head of the queue (documents
    /// join it in the order they change), or one that changed while it was being indexed.
    var oldestWait: Instant? {
        var oldest = head < waiting.count ? waitingSince[waiting[head]] : nil
        func consider(_ since: Instant?) {
            guard let since else { return }
            if let known = oldest, !(since < known) { return }
            oldest = since
        }
        for id in requeued { consider(waitingSince[id]) }
        for since in again.values { consider(since) }
        return oldest
    }

    /// Document `id` changed at `now` (or the catch-up found it behind).
    mutating func changed(_ id: String, now: Instant) {
        if running.contains(id) {
            if again[id] == nil { again[id] = now }
            return
        }
        guard waitingSince[id] == nil else { return }
        waitingSince[id] = now
        waiting.append(id)
    }

    /// The next document to index, nil when none waits or ``concurrency`` are being indexed.
    mutating func next() -> String? {
        guard running.count < concurrency else { return nil }
        while !requeued.isEmpty {
            let id = requeued.removeFirst()
            guard waitingSince.removeValue(forKey: id) != nil else { continue }
            running.insert(id)
            return id
        }
        while head < waiting.count {
            let id = waiting[head]
            head += 1
            guard waitingSince.removeValue(forKey: id) != nil else { continue }
            running.insert(id)
            compact()
            return id
        }
        compact()
        return nil
    }

    /// Document `id`'s indexing ended (written, refused, or failed): if it changed meanwhile, it waits again.
    mutating func finished(_ id: String) {
        guard running.remove(id) != nil else { return }
        if let since = again.removeValue(forKey: id) {
            waitingSince[id] = since
            requeued.append(id)
        }
    }

    /// Drops the taken entries at the start of ``waiting`` once they are half of it.
    private mutating func compact() {
        guard head > 64, head * 2 > waiting.count else { return }
        waiting.removeFirst(head)
        head = 0
    }
}
