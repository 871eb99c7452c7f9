import QuireSystem

/// Reports uncoordinated changes to presented paths: writes, attribute changes, deletions and renames made by
/// anyone, debounced per path, minus the changes the coordination layer announced as its own.
///
/// Each path's *parent directory* is watched (never the file: an atomic `rename` replaces the inode), with one
/// kernel watch per directory shared by every token in it. Changes come out through `onEvent`, called serially
/// on the watcher's own thread; keep it short (hand work to a queue). `onWarning` says when the watcher
/// degrades: inotify unavailable (`EMFILE`), out of watches (`ENOSPC`), a missing directory, a lost watch or an
/// overflowed queue. A directory that cannot be watched is polled with `stat` every `pollInterval` (and a
/// watch retried) so changes are still reported, more coarsely: polling cannot tell a `touch` from a write.
///
/// Suppression: see ``beginCoordinatedWrite(_:)``. Threading: every method may be called from any thread,
/// including from inside `onEvent`.
final class InotifyWatcher: Sendable {
    private let reader: Reader

    /// Starts a watcher with its reader thread.
    /// - Parameters:
    ///   - debounce: Quiet time after a path's latest change before it is reported.
    ///   - maximumDelay: Longest wait from a path's first change to its report, however busy it stays.
    ///   - suppressionGrace: How long a path stays suppressed after its coordinated write ends (default:
    ///     `debounce`), covering the time the reader takes to see the write's events.
    ///   - pollInterval: How often directories that cannot be watched are stat'ed and retried.
    ///   - system: The inotify calls (tests replace them to simulate exhausted limits).
    ///   - onWarning: Told, in a sentence, whenever the watcher degrades or recovers (required: a watcher that
    ///     cannot watch must not be silent).
    ///   - onEvent: Given each batch of changes whose windows closed together.
    init(
        debounce: Duration = .milliseconds(20),
        maximumDelay: Duration = .milliseconds(200),
        suppressionGrace: Duration? = nil,
        pollInterval: Duration = .seconds(1),
        system: InotifySystem = .live,
        onWarning: @escaping @Sendable (String) -> Void,
        onEvent: @escaping @Sendable ([WatchedChange]) -> Void
    ) {
        reader = Reader(
            table: WatchTable(pollInterval: pollInterval),
            debouncer: ChangeDebouncer(
                debounce: debounce, maximumDelay: maximumDelay, grace: suppressionGrace ?? debounce),
            system: system, onWarning: onWarning, onEvent: onEvent)
        reader.start()
    }

    deinit {
        reader.stop()
    }

    /// Reports changes to the file or directory at the absolute `path` under `token`; a known token moves to
    /// the new path. Only the entry itself is observed: for a directory, not the files inside it.
    /// After `.deleted` or `.movedAway(to: nil)` the token keeps watching its path; after `.movedAway(to: p)`
    /// it watches `p`. Symbolic links are not resolved: pass the path the changes will be made at.
    func watch(_ path: String, token: UInt64) throws(InotifyWatcherError) {
        guard let (directory, name) = WatchTable.split(path) else { throw .invalidPath(path) }
        try reader.watch(directory: directory, name: name, token: token)
    }

    /// Reports changes to the entries of the directory at the absolute `path` under `token`, each at the entry's
    /// path: written or created (`.contentsChanged`), deleted or moved out of the watched directories
    /// (`.deleted`, `.movedAway(to: nil)`), renamed within them (`.movedAway(to:)` of the old path). One kernel
    /// watch on the directory, shared with the tokens of entries in it; an entry's event costs the same whatever
    /// the number of entries. A known token moves to the new directory.
    func watchEntries(of path: String, token: UInt64) throws(InotifyWatcherError) {
        guard let (parent, name) = WatchTable.split(path) else { throw .invalidPath(path) }
        try reader.watch(directory: WatchTable.join(parent, name), name: "", token: token)
    }

    /// Stops reporting `token`; changes still waiting in its window are dropped. The directory's watch is
    /// removed with its last token. A batch already being delivered may still mention the token.
    func unwatch(token: UInt64) {
        reader.unwatch(token: token)
    }

    /// Announces a coordinated write to `path`, whose presenters are told through coordination instead.
    ///
    /// The exact rule: a change to `path` (compared with each token's current path after the same
    /// normalization as ``watch(_:token:)``) is dropped if its event is read from the inotify queue (or a poll
    /// scan sees it) at an instant `t` with `begin <= t`, and either the write has not ended or
    /// `t <= end + suppressionGrace`. `begin` and `end` are the instants these calls ran; both first read what is
    /// already queued, so a change made before `begin` returned is never dropped and the events of writes that
    /// returned before `end` was called are always dropped, however late the reader thread runs. The grace
    /// covers stragglers: a descriptor of the writer closed (`IN_CLOSE_WRITE`) just after `end`.
    /// `.overflow` is never dropped; changes already waiting in a window when the write begins are still
    /// reported; a rename still moves the token even when its report is dropped.
    func beginCoordinatedWrite(_ path: String) -> CoordinatedWrite {
        let normalized = WatchTable.split(path).map { WatchTable.join($0.directory, $0.name) } ?? path
        return reader.beginWrite(path: normalized)
    }

    /// Ends a coordinated write; its path stays suppressed for `suppressionGrace` more.
    func endCoordinatedWrite(_ write: CoordinatedWrite) {
        reader.endWrite(write)
    }

    /// Stops the reader thread and releases every watch. No callback runs after `close` returns, unless it is
    /// called from inside a callback (then the thread stops when that callback returns). Idempotent.
    func close() {
        reader.stop()
    }

    /// The number of kernel watches held (one per watched directory).
    var watchCount: Int { reader.watchCount }

    /// The inotify descriptor, nil once closed or when inotify is unavailable (for tests: `/proc/self/fdinfo`).
    var inotifyDescriptor: Int32? { reader.inotifyDescriptor }

    /// Handles `bytes` as if they had been read from the inotify descriptor (for tests).
    func ingest(_ bytes: [UInt8]) {
        reader.ingest(bytes)
    }
}

/// Why ``InotifyWatcher/watch(_:token:)`` refused a path.
enum InotifyWatcherError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path is relative, is `/`, or has `.` or `..` components.
    case invalidPath(String)
    /// The watcher was closed.
    case closed

    /// What was refused and why.
    var description: String {
        switch self {
        case .invalidPath(let path):
            return "cannot watch \(path): pass an absolute path without . or .. components, other than /"
        case .closed:
            return "cannot watch: the watcher was closed"
        }
    }
}

/// The inotify calls of a watcher; tests replace them to simulate `EMFILE` or `ENOSPC`.
struct InotifySystem: Sendable {
    /// Creates an inotify instance.
    var initialize: @Sendable () -> Result<Int32, SystemCallError>
    /// Adds (or finds) the watch of a directory.
    var addWatch: @Sendable (_ descriptor: Int32, _ directory: String) -> Result<Int32, SystemCallError>

    /// The real calls.
    static let live = InotifySystem(
        initialize: { Result { () throws(SystemCallError) in try Inotify.initialize() } },
        addWatch: { descriptor, directory in
            Result { () throws(SystemCallError) in try Inotify.addWatch(descriptor, directory: directory) }
        })
}
