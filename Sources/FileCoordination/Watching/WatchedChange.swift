/// An uncoordinated change to a watched path, reported by ``InotifyWatcher`` once its debounce window closes.
struct WatchedChange: Sendable, Hashable {
    /// What happened to a watched path.
    enum Kind: Sendable, Hashable {
        /// The contents may differ: written, truncated, created, or replaced by a rename (`mv tmp file`).
        case contentsChanged
        /// Only metadata changed (`IN_ATTRIB`: timestamps, permissions, owner, links).
        case metadataChanged
        /// The entry was unlinked, or its directory was deleted.
        case deleted
        /// The entry was renamed: to the new path when it stays in a watched directory (the token follows it),
        /// nil when it left the watched directories or its directory was moved.
        case movedAway(to: String?)
        /// Events may have been lost (`IN_Q_OVERFLOW`, a lost watch, an unreadable buffer): assume anything
        /// happened and look again.
        case overflow
    }

    /// The token given to ``InotifyWatcher/watch(_:token:)``.
    var token: UInt64
    /// The token's path when the change happened (the old path of a move).
    var path: String
    /// What happened.
    var kind: Kind

    /// Creates a change.
    init(token: UInt64, path: String, kind: Kind) {
        self.token = token
        self.path = path
        self.kind = kind
    }
}

extension WatchedChange.Kind {
    /// The single kind that says what `self` followed by `later` did to one path, or nil when both must be
    /// reported in order (a move followed by something at the new path).
    ///
    /// A deletion or a move ends what came before it; contents win over metadata; a deletion followed by a
    /// creation is a contents change (the path holds a new file); an overflow absorbs everything but moves.
    func merged(with later: Self) -> Self? {
        switch (self, later) {
        case (.movedAway, .movedAway(let to)):
            return .movedAway(to: to)
        case (.movedAway, _), (_, .movedAway):
            return nil
        case (.overflow, _), (_, .overflow):
            return .overflow
        case (_, .deleted):
            return .deleted
        case (.deleted, _):
            return .contentsChanged
        case (.contentsChanged, _), (_, .contentsChanged):
            return .contentsChanged
        case (.metadataChanged, .metadataChanged):
            return .metadataChanged
        }
    }
}

/// A coordinated write in progress, returned by ``InotifyWatcher/beginCoordinatedWrite(_:)``.
struct CoordinatedWrite: Sendable, Hashable {
    /// Identifies the write inside its watcher.
    var id: UInt64
    /// The path being written.
    var path: String
}
