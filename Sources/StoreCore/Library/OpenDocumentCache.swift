/// The open documents by id, least recently used first, within a bound: a pure structure (no lock, no I/O) that
/// the library keeps in its state. Looking up, touching, adding and removing cost O(1) whatever the bound (the
/// recency order is a doubly linked list through the entries); making room skips the documents that may not be
/// closed (unsaved edits, a conflict), so it costs O(1) plus the number of those it passes.
struct OpenDocumentCache<Value> {
    fileprivate struct Entry {
        var value: Value
        var older: DocumentID?
        var newer: DocumentID?
    }

    private var entries: [DocumentID: Entry] = [:]
    private var oldest: DocumentID?
    private var newest: DocumentID?

    /// An empty cache.
    init() {}

    /// How many documents are open.
    var count: Int { entries.count }

    /// Whether none is.
    var isEmpty: Bool { entries.isEmpty }

    /// The open document `id`, without touching it.
    subscript(id: DocumentID) -> Value? { entries[id]?.value }

    /// Every open document, in no particular order.
    var values: [Value] { entries.values.map(\.value) }

    /// The ids from the least to the most recently used (for tests: O(count)).
    var idsByRecency: [DocumentID] {
        var ids: [DocumentID] = []
        var cursor = oldest
        while let id = cursor {
            ids.append(id)
            cursor = entries[id]?.newer
        }
        return ids
    }

    /// Adds (or replaces) `value` as the most recently used document.
    mutating func insert(_ value: Value, for id: DocumentID) {
        if entries[id] != nil { unlink(id) }
        entries[id] = Entry(value: value, older: newest, newer: nil)
        if let newest { entries[newest]?.newer = id }
        newest = id
        if oldest == nil { oldest = id }
    }

    /// Marks `id` the most recently used; returns its document, nil when it is not open.
    mutating func touch(_ id: DocumentID) -> Value? {
        guard let entry = entries[id] else { return nil }
        if newest != id { insert(entry.value, for: id) }
        return entry.value
    }

    /// Removes `id`; returns its document, nil when it was not open.
    @discardableResult
    mutating func remove(_ id: DocumentID) -> Value? {
        guard let entry = entries[id] else { return nil }
        unlink(id)
        entries[id] = nil
        return entry.value
    }

    /// Removes everything; returns what was open.
    mutating func removeAll() -> [Value] {
        defer {
            entries.removeAll()
            oldest = nil
            newest = nil
        }
        return values
    }

    /// Removes least recently used documents until at most `bound` are open, never `keeping` and never one that
    /// `mayClose` refuses; returns those removed, oldest first.
    mutating func evict(downTo bound: Int, keeping: DocumentID? = nil, mayClose: (Value) -> Bool) -> [Value] {
        var evicted: [Value] = []
        var cursor = oldest
        while entries.count > bound, let id = cursor {
            let entry = entries[id]!
            cursor = entry.newer
            guard id != keeping, mayClose(entry.value) else { continue }
            remove(id)
            evicted.append(entry.value)
        }
        return evicted
    }

    /// Takes `id` out of the recency list (its entry stays).
    private mutating func unlink(_ id: DocumentID) {
        guard let entry = entries[id] else { return }
        if let older = entry.older { entries[older]?.newer = entry.newer } else if oldest == id { oldest = entry.newer }
        if let newer = entry.newer { entries[newer]?.older = entry.older } else if newest == id { newest = entry.older }
        entries[id]?.older = nil
        entries[id]?.newer = nil
    }
}

extension OpenDocumentCache: Sendable where Value: Sendable {}
extension OpenDocumentCache.Entry: Sendable where Value: Sendable {}
