/// Coalesces the changes of each token into one report per debounce window and drops those caused by
/// coordinated writes. A pure state machine: the caller passes `now` in and delivers what comes out.
///
/// **Debounce.** The first change of a token at a path opens a window that closes `debounce` after the latest
/// change, but never later than `maximumDelay` after the first one (so a steady writer is still reported).
/// When it closes, the changes come out merged by ``WatchedChange/Kind/merged(with:)``. Windows are kept per token
/// and path: a token that observes a directory's entries has one per entry, so that two entries' changes are
/// never merged into one.
///
/// **Suppression.** A change observed at `now` is dropped when its path (the token's path at that moment,
/// compared as a string) has a coordinated write with `began <= now` that has not ended, or — for a change of
/// contents or metadata only — ended at `end` with `now <= end + grace`. The grace covers a writer's own
/// events read late; a deletion or a move away after the write ended is somebody else's and is reported
/// (an `rm` right after a save must not be lost). `.overflow` is never dropped, and a write that begins does
/// not cancel changes already waiting in a window.
struct ChangeDebouncer {
    /// The changes of one token waiting for their window to close.
    private struct Window {
        var changes: [WatchedChange]
        var opened: ContinuousClock.Instant
        var deadline: ContinuousClock.Instant
        var sequence: UInt64
    }

    /// A coordinated write: open while `ended` is nil.
    private struct Write {
        var path: String
        var began: ContinuousClock.Instant
        var ended: ContinuousClock.Instant?
    }

    /// Quiet time after the latest change before a token is reported.
    let debounce: Duration
    /// Longest time from a token's first change to its report.
    let maximumDelay: Duration
    /// How long after a coordinated write ends its path stays suppressed (reader lag).
    let grace: Duration

    /// A window's key: the token and the path its changes happened at.
    private struct Key: Hashable {
        var token: UInt64
        var path: String
    }

    private var windows: [Key: Window] = [:]
    /// The paths with an open window, per token (to drop a removed token's windows without a scan).
    private var paths: [UInt64: Set<String>] = [:]
    private var writes: [UInt64: Write] = [:]
    private var sequence: UInt64 = 0

    /// Creates an empty debouncer.
    init(debounce: Duration, maximumDelay: Duration, grace: Duration) {
        self.debounce = max(debounce, .zero)
        self.maximumDelay = max(maximumDelay, self.debounce)
        self.grace = max(grace, .zero)
    }

    /// The earliest instant at which a window closes.
    var nextDeadline: ContinuousClock.Instant? { windows.values.map(\.deadline).min() }

    /// Whether a change to `path` observed at `now` is dropped (see the type's documentation); `kind` nil asks
    /// about a change of contents.
    func isSuppressed(_ path: String, at now: ContinuousClock.Instant, kind: WatchedChange.Kind? = nil) -> Bool {
        let withinGrace: Bool
        switch kind {
        case nil, .contentsChanged?, .metadataChanged?: withinGrace = true
        case .deleted?, .movedAway?, .overflow?: withinGrace = false
        }
        return writes.values.contains { write in
            guard write.path == path, write.began <= now else { return false }
            guard let ended = write.ended else { return true }
            return withinGrace && now <= ended + grace
        }
    }

    /// A change was observed at `now`; returns false if it was suppressed.
    @discardableResult
    mutating func changeObserved(_ change: WatchedChange, at now: ContinuousClock.Instant) -> Bool {
        if change.kind != .overflow && isSuppressed(change.path, at: now, kind: change.kind) { return false }
        let key = Key(token: change.token, path: change.path)
        guard var window = windows[key] else {
            sequence += 1
            windows[key] = Window(changes: [change], opened: now, deadline: now + debounce, sequence: sequence)
            paths[change.token, default: []].insert(change.path)
            return true
        }
        if let last = window.changes.last, let merged = last.kind.merged(with: change.kind) {
            window.changes[window.changes.count - 1].kind = merged
        } else {
            window.changes.append(change)
        }
        window.deadline = min(now + debounce, window.opened + maximumDelay)
        windows[key] = window
        return true
    }

    /// The token was unwatched: its waiting changes are dropped.
    mutating func tokenRemoved(_ token: UInt64) {
        for path in paths.removeValue(forKey: token) ?? [] { windows[Key(token: token, path: path)] = nil }
    }

    /// A coordinated write on `path` began at `now`.
    mutating func writeBegan(id: UInt64, path: String, at now: ContinuousClock.Instant) {
        writes = writes.filter { $0.value.ended.map { now <= $0 + grace } ?? true }
        writes[id] = Write(path: path, began: now)
    }

    /// A coordinated write ended at `now`; its path stays suppressed for `grace`. Unknown ids are ignored.
    mutating func writeEnded(id: UInt64, at now: ContinuousClock.Instant) {
        writes[id]?.ended = now
    }

    /// Closes every window whose deadline is not after `now` and returns its changes, oldest window first.
    mutating func deadlineReached(at now: ContinuousClock.Instant) -> [WatchedChange] {
        let due = windows.filter { $0.value.deadline <= now }.sorted { $0.value.sequence < $1.value.sequence }
        for (key, _) in due {
            windows[key] = nil
            paths[key.token]?.remove(key.path)
            if paths[key.token]?.isEmpty == true { paths[key.token] = nil }
        }
        return due.flatMap(\.value.changes)
    }
}
