import QuireSystem

/// Which token watches which entry of which directory, and what an inotify event or a poll scan means for each
/// token. A pure state machine: the executor makes the system calls and passes their results and `now` in.
///
/// Directories are shared: every token in one directory joins the kernel watch of that directory, and the
/// watch is released (`.removeWatch`) when its last token leaves. A directory that cannot be watched (or whose
/// watch is lost) is *polled*: its tokens' paths are stat'ed every `pollInterval`, and a watch is tried again.
///
/// `IN_CLOSE_WRITE` is a contents change only after an `IN_MODIFY` since the previous close: a writer that keeps
/// the file open past the debounce window is reported again when it closes, and `touch(1)`, which opens the
/// file for writing without writing, is a metadata change only.
struct WatchTable {
    /// How a token's directory is observed.
    enum Placement: Hashable {
        /// By the kernel watch with this descriptor.
        case watch(Int32)
        /// By stat'ing the token's path every poll interval.
        case polled
    }

    /// The last thing a poll scan saw at a polled path; `.unknown` until the first scan.
    enum Baseline: Hashable {
        /// Not looked at yet: the first scan records what it sees without reporting.
        case unknown
        /// What `stat` returned (nil: nothing there).
        case seen(FileSnapshot?)
    }

    /// One token's path and how it is observed.
    struct Registration: Hashable {
        /// The directory, normalized, as the token gave it (no symlinks resolved).
        var directory: String
        /// The entry's name inside `directory`; empty for a token that observes the directory's entries (see
        /// ``WatchTable/register(token:directory:name:watch:snapshot:at:)``).
        var name: String
        /// How the directory is observed.
        var placement: Placement
        /// Whether an `IN_MODIFY` arrived since the last `IN_CLOSE_WRITE` (a close without a write is ignored).
        var writtenSinceClose = false
        /// For a polled token, what the last scan saw.
        var baseline = Baseline.unknown

        /// The full path (the directory itself for a token of its entries).
        var path: String { name.isEmpty ? directory : WatchTable.join(directory, name) }
        /// Whether the token observes the entries of `directory` rather than one entry.
        var observesEntries: Bool { name.isEmpty }
    }

    /// Something the executor must do.
    enum Action: Hashable {
        /// Hand this change to the debouncer.
        case report(WatchedChange)
        /// Call `inotify_rm_watch` for this descriptor: its last token left.
        case removeWatch(Int32)
        /// Tell the `onWarning` hook.
        case warn(String)
    }

    /// The tokens of one kernel watch: by entry name, and those of every entry (kept apart, so that an entry's
    /// event visits its own name's tokens and the directory's observers, never the other names').
    private struct Watch {
        var directory: String
        var names: [String: Set<UInt64>] = [:]
        /// Tokens that observe every entry of the directory.
        var entries: Set<UInt64> = []
        /// For `entries`: the names written (`IN_MODIFY`) since their last close.
        var writtenNames: Set<String> = []

        var isUnused: Bool { names.isEmpty && entries.isEmpty }
    }

    /// An `IN_MOVED_FROM` of watched entries waiting for its `IN_MOVED_TO`.
    private struct PendingMove {
        var tokens: Set<UInt64>
        /// The source directory's entry observers, with the entry's old path.
        var observers: Set<UInt64> = []
        var path: String = ""
        var at: ContinuousClock.Instant
    }

    /// How often polled directories are scanned and retried.
    let pollInterval: Duration
    /// Every token.
    private(set) var registrations: [UInt64: Registration] = [:]
    private var watches: [Int32: Watch] = [:]
    private var polled: [String: Set<UInt64>] = [:]
    private var pendingMoves: [UInt32: PendingMove] = [:]
    /// When polled directories are due for a scan; nil when none is polled.
    private(set) var nextScan: ContinuousClock.Instant?
    /// How many entries (names and tokens) handling events has visited since the table was made: the work an
    /// event costs, which tests count at two sizes (an event on one name must not visit its directory's others).
    private(set) var entriesVisited = 0

    /// Creates an empty table.
    init(pollInterval: Duration) {
        self.pollInterval = pollInterval
    }

    /// The number of kernel watches held.
    var watchCount: Int { watches.count }

    /// The polled directories with the token paths to stat in each.
    var polledPaths: [String: [UInt64: String]] {
        polled.mapValues { tokens in
            Dictionary(
                uniqueKeysWithValues: tokens.compactMap { token in registrations[token].map { (token, $0.path) } })
        }
    }

    // MARK: Registration

    /// A token now watches `directory`/`name`; `watch` is the result of `inotify_add_watch` on the directory and
    /// `snapshot` what `stat` sees at the path (used only when the watch failed). A known token is moved.
    ///
    /// With an empty `name` the token observes every entry of `directory`: each change of an entry is reported
    /// at the entry's path (a rename within watched directories as `.movedAway(to:)` of the old path, a creation
    /// or a rename into the directory as `.contentsChanged`), the directory's own loss as for any token. When
    /// the directory cannot be watched, only the directory itself is polled, and `.overflow` is reported when
    /// its watch comes back (its entries' changes meanwhile were not seen).
    mutating func register(
        token: UInt64, directory: String, name: String, watch: Result<Int32, SystemCallError>,
        snapshot: FileSnapshot?, at now: ContinuousClock.Instant
    ) -> [Action] {
        var actions: [Action] = []
        let old = registrations.removeValue(forKey: token)
        if let old { leave(token, old) }
        var registration = Registration(directory: directory, name: name, placement: .polled)
        switch watch {
        case .success(let descriptor):
            registration.placement = .watch(descriptor)
            if name.isEmpty {
                watches[descriptor, default: Watch(directory: directory)].entries.insert(token)
            } else {
                watches[descriptor, default: Watch(directory: directory)].names[name, default: []].insert(token)
            }
        case .failure(let error):
            registration.baseline = .seen(snapshot)
            if polled[directory] == nil {
                actions.append(.warn("\(error); polling \(directory) every \(pollInterval) until it can be watched"))
            }
            polled[directory, default: []].insert(token)
            nextScan = nextScan ?? now + pollInterval
        }
        registrations[token] = registration
        if let old { actions += releaseIfUnused(old) }
        return actions
    }

    /// A token stopped watching; its directory's watch is released if it was the last one there.
    mutating func unregister(token: UInt64) -> [Action] {
        guard let old = registrations.removeValue(forKey: token) else { return [] }
        leave(token, old)
        return releaseIfUnused(old)
    }

    private mutating func leave(_ token: UInt64, _ registration: Registration) {
        switch registration.placement {
        case .watch(let descriptor):
            if registration.observesEntries {
                watches[descriptor]?.entries.remove(token)
                if watches[descriptor]?.entries.isEmpty == true { watches[descriptor]?.writtenNames.removeAll() }
                return
            }
            watches[descriptor]?.names[registration.name]?.remove(token)
            if watches[descriptor]?.names[registration.name]?.isEmpty == true {
                watches[descriptor]?.names[registration.name] = nil
            }
        case .polled:
            polled[registration.directory]?.remove(token)
        }
    }

    private mutating func releaseIfUnused(_ registration: Registration) -> [Action] {
        switch registration.placement {
        case .watch(let descriptor):
            guard watches[descriptor]?.isUnused == true else { return [] }
            watches[descriptor] = nil
            return [.removeWatch(descriptor)]
        case .polled:
            if polled[registration.directory]?.isEmpty == true { polled[registration.directory] = nil }
            if polled.isEmpty { nextScan = nil }
            return []
        }
    }

    // MARK: Events

    /// Events read from the inotify descriptor at `now`, in order.
    mutating func handle(_ events: [InotifyEvent], at now: ContinuousClock.Instant) -> [Action] {
        pendingMoves = pendingMoves.filter { now - $0.value.at < .seconds(1) }
        return events.flatMap { handle($0, at: now) }
    }

    /// Events were lost (queue overflow, an unreadable buffer): every token with a kernel watch gets `.overflow`.
    mutating func eventsLost(_ reason: String) -> [Action] {
        pendingMoves.removeAll()
        let watched = registrations.filter { if case .watch = $0.value.placement { true } else { false } }
        return [.warn("\(reason); reporting every watched path as changed")]
            + watched.keys.sorted().map { report($0, .overflow) }
    }

    private mutating func handle(_ event: InotifyEvent, at now: ContinuousClock.Instant) -> [Action] {
        if event.mask.contains(.queueOverflow) {
            return eventsLost("the inotify queue overflowed (fs.inotify.max_queued_events)")
        }
        guard let watch = watches[event.watch] else { return [] }  // a watch already released
        // The directory's own events concern every token in it (and cost that much, once); an entry's event
        // looks up its name's tokens only, whatever the number of names in the directory.
        if event.mask.contains(.ignored) || event.mask.contains(.unmount) {
            return [.warn("the kernel dropped the watch on \(watch.directory); polling it instead")]
                + everyone(in: watch).map { report($0, .overflow) }
                + dropWatch(event.watch, baseline: .unknown, at: now)
        }
        if event.mask.contains(.deleteSelf) || event.mask.contains(.moveSelf) {
            let kind: WatchedChange.Kind = event.mask.contains(.deleteSelf) ? .deleted : .movedAway(to: nil)
            return [.warn("\(watch.directory) was deleted or moved; polling for it to come back")]
                + everyone(in: watch).map { report($0, kind) }
                + dropWatch(event.watch, baseline: .seen(nil), at: now)
        }
        if event.mask.contains(.movedTo) {
            return movedTo(event, at: now)
        }
        guard !event.name.isEmpty else { return [] }
        var actions = watch.entries.isEmpty ? [] : entryObserved(event, in: watch, at: now)
        guard let tokens = watch.names[event.name] else { return actions }
        entriesVisited += tokens.count
        for token in tokens.count == 1 ? Array(tokens) : tokens.sorted() {
            if event.mask.contains(.movedFrom) {
                actions.append(report(token, .movedAway(to: nil)))
            } else if event.mask.contains(.delete) {
                actions.append(report(token, .deleted))
            } else if event.mask.contains(.create) {
                actions.append(report(token, .contentsChanged))
            } else if event.mask.contains(.modify) {
                registrations[token]?.writtenSinceClose = true
                actions.append(report(token, .contentsChanged))
            } else if event.mask.contains(.closeWrite) {
                if registrations[token]?.writtenSinceClose == true { actions.append(report(token, .contentsChanged)) }
            } else if event.mask.contains(.attributes) {
                actions.append(report(token, .metadataChanged))
            }
            if !event.mask.isDisjoint(with: [.movedFrom, .delete, .create, .closeWrite]) {
                registrations[token]?.writtenSinceClose = false
            }
        }
        if event.mask.contains(.movedFrom) {
            pendingMoves[event.cookie, default: PendingMove(tokens: [], at: now)].tokens = tokens
        }
        return actions
    }

    /// An entry's event, for the tokens that observe every entry of its directory.
    private mutating func entryObserved(_ event: InotifyEvent, in watch: Watch, at now: ContinuousClock.Instant)
        -> [Action]
    {
        let path = Self.join(watch.directory, event.name)
        let kind: WatchedChange.Kind?
        if event.mask.contains(.movedFrom) {
            kind = .movedAway(to: nil)
            pendingMoves[event.cookie] = PendingMove(
                tokens: pendingMoves[event.cookie]?.tokens ?? [], observers: watch.entries, path: path, at: now)
        } else if event.mask.contains(.delete) {
            kind = .deleted
        } else if event.mask.contains(.create) {
            kind = .contentsChanged
        } else if event.mask.contains(.modify) {
            watches[event.watch]?.writtenNames.insert(event.name)
            kind = .contentsChanged
        } else if event.mask.contains(.closeWrite) {
            kind = watches[event.watch]?.writtenNames.remove(event.name) != nil ? .contentsChanged : nil
        } else if event.mask.contains(.attributes) {
            kind = .metadataChanged
        } else {
            kind = nil
        }
        if !event.mask.isDisjoint(with: [.movedFrom, .delete, .create]) {
            watches[event.watch]?.writtenNames.remove(event.name)
        }
        guard let kind else { return [] }
        entriesVisited += watch.entries.count
        return watch.entries.sorted().map { .report(WatchedChange(token: $0, path: path, kind: kind)) }
    }

    /// Every token of a watch, in token order (for the directory's own events: its loss, deletion or move).
    private mutating func everyone(in watch: Watch) -> [UInt64] {
        entriesVisited += watch.names.count + watch.entries.count
        return watch.names.values.reduce(into: watch.entries) { $0.formUnion($1) }.sorted()
    }

    /// `IN_MOVED_TO`: tokens at the destination see their file replaced; tokens whose entry was the source
    /// (paired by cookie) follow it to its new name.
    private mutating func movedTo(_ event: InotifyEvent, at now: ContinuousClock.Instant) -> [Action] {
        guard let destination = watches[event.watch], !event.name.isEmpty else { return [] }
        var actions: [Action] = []
        let replaced = destination.names[event.name] ?? []
        entriesVisited += replaced.count
        for token in replaced.sorted() {
            registrations[token]?.writtenSinceClose = false
            actions.append(report(token, .contentsChanged))
        }
        let path = Self.join(destination.directory, event.name)
        let move = pendingMoves.removeValue(forKey: event.cookie)
        // The entry observers: the source's see the entry move (to its new path), the destination's others see
        // a new entry.
        if !destination.entries.isEmpty || !(move?.observers.isEmpty ?? true) {
            watches[event.watch]?.writtenNames.remove(event.name)
            entriesVisited += destination.entries.count + (move?.observers.count ?? 0)
            for token in (move?.observers ?? []).sorted() {
                actions.append(.report(WatchedChange(token: token, path: move!.path, kind: .movedAway(to: path))))
            }
            for token in destination.entries.subtracting(move?.observers ?? []).sorted() {
                actions.append(.report(WatchedChange(token: token, path: path, kind: .contentsChanged)))
            }
        }
        guard let move else { return actions }
        entriesVisited += move.tokens.count
        for token in move.tokens.sorted() {
            guard let old = registrations[token], case .watch(let source) = old.placement else { continue }
            let directory = source == event.watch ? old.directory : destination.directory
            let moved = Registration(directory: directory, name: event.name, placement: .watch(event.watch))
            actions.append(report(token, .movedAway(to: moved.path)))
            leave(token, old)
            watches[event.watch]?.names[event.name, default: []].insert(token)
            registrations[token] = moved
            actions += releaseIfUnused(old)
        }
        return actions
    }

    /// The tokens of a lost watch are polled from now on.
    private mutating func dropWatch(_ descriptor: Int32, baseline: Baseline, at now: ContinuousClock.Instant)
        -> [Action]
    {
        guard let watch = watches.removeValue(forKey: descriptor) else { return [] }
        for token in Array(watch.names.values.joined()) + Array(watch.entries) {
            guard var registration = registrations[token] else { continue }
            registration.placement = .polled
            registration.baseline = baseline
            registrations[token] = registration
            polled[registration.directory, default: []].insert(token)
        }
        nextScan = nextScan ?? now + pollInterval
        return [.removeWatch(descriptor)]
    }

    private func report(_ token: UInt64, _ kind: WatchedChange.Kind) -> Action {
        .report(WatchedChange(token: token, path: registrations[token]?.path ?? "", kind: kind))
    }

    // MARK: Polling

    /// A scan of polled `directory`: `watch` is a new `inotify_add_watch` attempt, made *before* the paths were
    /// stat'ed into `snapshots` (so nothing falls between the scan and the watch).
    mutating func scanned(
        directory: String, watch: Result<Int32, SystemCallError>, snapshots: [UInt64: FileSnapshot?],
        at now: ContinuousClock.Instant
    ) -> [Action] {
        guard let tokens = polled[directory] else { return [] }
        var actions: [Action] = []
        for token in tokens.sorted() {
            guard let snapshot = snapshots[token], let registration = registrations[token] else { continue }
            if case .seen(let old) = registration.baseline, let kind = FileSnapshot.change(from: old, to: snapshot) {
                actions.append(report(token, kind))
            }
            registrations[token]?.baseline = .seen(snapshot)
        }
        if case .success(let descriptor) = watch {
            polled[directory] = nil
            for token in tokens.sorted() {
                guard let registration = registrations[token] else { continue }
                registrations[token]?.placement = .watch(descriptor)
                registrations[token]?.baseline = .unknown
                if registration.observesEntries {
                    watches[descriptor, default: Watch(directory: directory)].entries.insert(token)
                    // Its entries changed unseen meanwhile, perhaps.
                    actions.append(report(token, .overflow))
                } else {
                    watches[descriptor, default: Watch(directory: directory)].names[registration.name, default: []]
                        .insert(token)
                }
            }
            actions.append(.warn("\(directory) is watched with inotify again"))
        }
        return actions
    }

    /// A scan of every polled directory ended at `now`: the next one is due `pollInterval` later.
    mutating func scanFinished(at now: ContinuousClock.Instant) {
        nextScan = polled.isEmpty ? nil : now + pollInterval
    }

    // MARK: Paths

    /// Splits an absolute path into its normalized parent directory and its name; nil for a relative path,
    /// `/`, or a path with `.` or `..` components (their parent is not lexical).
    static func split(_ path: String) -> (directory: String, name: String)? {
        guard path.hasPrefix("/") else { return nil }
        let components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let name = components.last, !components.contains("."), !components.contains("..") else { return nil }
        return ("/" + components.dropLast().joined(separator: "/"), name)
    }

    /// Joins a directory and a name.
    static func join(_ directory: String, _ name: String) -> String {
        directory == "/" ? "/" + name : directory + "/" + name
    }
}
