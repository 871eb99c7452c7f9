import CoordinationArbiter
import Foundation
import Logging
import Synchronization

/// Tells presenters with `observesUncoordinatedChanges` about changes made without coordination, found by an
/// ``InotifyWatcher`` made when the first such presenter registers.
///
/// What a presenter hears (on its queue, in order with its coordination messages):
/// - contents written, truncated, created or replaced by a rename → `presentedItemDidChange()`;
/// - attribute-only changes (`touch`, `chmod`) → nothing (Quire reports contents, as Nutrient's providers do);
/// - unlinked, or moved out of the watched directories → `accommodatePresentedItemDeletion` (the item is
///   already gone: the completion handler's error is ignored);
/// - renamed within a watched directory → `presentedItemDidMove(to:)`, and the presenter's item follows;
/// - inotify lost events (queue overflow) → `presentedItemDidChange()`, conservatively.
///
/// A presenter whose item is a directory (when it registers or moves) also hears of its entries, each at the
/// entry's URL: written, created or renamed into it → `presentedSubitemDidChange(at:)`; deleted or moved out of
/// the watched directories → `accommodatePresentedSubitemDeletion(at:)`; renamed → `presentedSubitem(at:didMoveTo:)`.
/// One presenter of a directory of a million files costs one kernel watch, and an entry's change the same as in a
/// directory of ten. (Apple's presenters hear of coordinated subitem changes only; these are uncoordinated ones,
/// so a coordinated write inside the directory by another process may be told twice.)
///
/// Coordinated writes are not echoed: a write granted in this process suppresses its paths from grant to end
/// (plus the watcher's grace), and a presenter asked to relinquish to another process's writer has its path
/// suppressed until its reacquire, since coordination tells it of that write itself.
final class UncoordinatedChangeReporter: Sendable {
    private struct State {
        var watcher: InotifyWatcher?
        var observing: Set<PresenterID> = []
        /// Write paths (intent indices) of this process's pending requests.
        var pendingWrites: [RequestID: [Int]] = [:]
        var localWrites: [RequestID: [CoordinatedWrite]] = [:]
        var remoteWrites: [MessageID: CoordinatedWrite] = [:]
    }

    private let registry: PresenterRegistry
    private let mailboxes: PresenterMailboxes
    private let movedPresenter: @Sendable (PresenterID, ItemPath?) -> Void
    private let debounce: Duration
    private let logger: Logger
    private let state = Mutex(State())
    /// True once a presenter observes uncoordinated changes: until then coordinated accesses pay nothing here.
    private let active = Atomic<Bool>(false)

    /// Makes a reporter; `movedPresenter` tells the arbiter where a presenter's item went; `logger` hears of
    /// degraded watching.
    init(
        registry: PresenterRegistry, mailboxes: PresenterMailboxes, debounce: Duration, logger: Logger,
        movedPresenter: @escaping @Sendable (PresenterID, ItemPath?) -> Void
    ) {
        self.debounce = debounce
        self.logger = logger
        self.registry = registry
        self.mailboxes = mailboxes
        self.movedPresenter = movedPresenter
    }

    /// Whether any presenter observes uncoordinated changes (then accesses are tracked).
    var isActive: Bool { active.load(ordering: .relaxed) }

    // MARK: presenters

    /// The token under which a directory presenter's entries are watched (its item's token with the top bit set).
    static func entriesToken(of presenter: PresenterID) -> UInt64 { presenter.rawValue | (1 << 63) }

    /// Starts watching a presenter's item, if it asks for uncoordinated changes and has one.
    func presenterRegistered(_ presenter: PresenterID, path: ItemPath?, observes: Bool) {
        guard observes else { return }
        let isDirectory = path.map(Self.isDirectory) ?? false
        let watcher = state.withLock { state -> InotifyWatcher in
            state.observing.insert(presenter)
            if let watcher = state.watcher { return watcher }
            let made = InotifyWatcher(
                debounce: debounce,
                onWarning: { [logger] message in logger.warning("file watching: \(message)") },
                onEvent: { [weak self] changes in self?.report(changes) })
            state.watcher = made
            return made
        }
        active.store(true, ordering: .relaxed)
        if let path { watch(watcher, presenter, path, isDirectory: isDirectory) }
    }

    /// Moves a presenter's watch to its item's new place (or stops it when it presents nothing).
    func presenterMoved(_ presenter: PresenterID, path: ItemPath?) {
        guard let watcher = state.withLock({ $0.observing.contains(presenter) ? $0.watcher : nil }) else { return }
        if let path {
            watch(watcher, presenter, path, isDirectory: Self.isDirectory(path))
        } else {
            watcher.unwatch(token: presenter.rawValue)
            watcher.unwatch(token: Self.entriesToken(of: presenter))
        }
    }

    /// Stops watching a presenter's item and ends the suppressions of its rounds.
    func presenterRemoved(_ presenter: PresenterID) {
        let watcher = state.withLock { state -> InotifyWatcher? in
            state.observing.remove(presenter) != nil ? state.watcher : nil
        }
        watcher?.unwatch(token: presenter.rawValue)
        watcher?.unwatch(token: Self.entriesToken(of: presenter))
    }

    private func watch(_ watcher: InotifyWatcher, _ presenter: PresenterID, _ path: ItemPath, isDirectory: Bool) {
        do {
            try watcher.watch(path.description, token: presenter.rawValue)
            if isDirectory {
                try watcher.watchEntries(of: path.description, token: Self.entriesToken(of: presenter))
            } else {
                watcher.unwatch(token: Self.entriesToken(of: presenter))
            }
        } catch {
            logger.warning("cannot watch \(path) for uncoordinated changes: \(error)")
        }
    }

    /// Whether a directory is at `path` now (a symbolic link to one is not).
    private static func isDirectory(_ path: ItemPath) -> Bool {
        guard let snapshot = Inotify.snapshot(ofEntry: path.description) else { return false }
        return snapshot.mode & UInt32(S_IFMT) == UInt32(S_IFDIR)
    }

    // MARK: suppression

    /// A request of this process was submitted; `writeIndices` are the indices of its write intents.
    func requested(_ request: RequestID, writeIndices: [Int]) {
        guard !writeIndices.isEmpty else { return }
        state.withLock { $0.pendingWrites[request] = writeIndices }
    }

    /// A request of this process was granted: its written paths are suppressed until it ends.
    func granted(_ request: RequestID, paths: [ItemPath]) {
        state.withLock { state in
            guard let indices = state.pendingWrites.removeValue(forKey: request), let watcher = state.watcher else { return }
            state.localWrites[request] = indices.filter { $0 < paths.count }.map {
                watcher.beginCoordinatedWrite(paths[$0].description)
            }
        }
    }

    /// A request of this process failed or ended.
    func finished(_ request: RequestID) {
        state.withLock { state in
            state.pendingWrites[request] = nil
            guard let writes = state.localWrites.removeValue(forKey: request) else { return }
            for write in writes { state.watcher?.endCoordinatedWrite(write) }
        }
    }

    /// A presenter was asked to relinquish its item to a writer: the write will be announced to it.
    func relinquishing(_ presenter: PresenterID, message: MessageID) {
        guard isActive, let path = registry.entry(presenter)?.path else { return }
        state.withLock { state in
            guard state.observing.contains(presenter), let watcher = state.watcher else { return }
            state.remoteWrites[message] = watcher.beginCoordinatedWrite(path.description)
        }
    }

    /// The round of a relinquish message is over.
    func reacquired(_ message: MessageID) {
        guard isActive else { return }
        state.withLock { state in
            guard let write = state.remoteWrites.removeValue(forKey: message) else { return }
            state.watcher?.endCoordinatedWrite(write)
        }
    }

    // MARK: reporting

    private func report(_ changes: [WatchedChange]) {
        for change in changes {
            if change.token & (1 << 63) != 0 {
                reportEntry(change)
                continue
            }
            let presenter = PresenterID(change.token)
            guard let entry = registry.entry(presenter) else { continue }
            let box = entry.box
            let queue = box.presenter.presentedItemOperationQueue
            switch change.kind {
            case .contentsChanged, .overflow:
                mailboxes.post(presenter, on: queue) { box.presenter.presentedItemDidChange() }
            case .metadataChanged:
                continue
            case .deleted, .movedAway(to: nil):
                mailboxes.post(presenter, on: queue) { box.presenter.accommodatePresentedItemDeletion { _ in } }
            case .movedAway(let destination?):
                let path = ItemLocator.path(ofAbsoluteOrRelative: destination, resolvingLastComponent: false)
                if registry.updatePath(presenter, to: path) { movedPresenter(presenter, path) }
                let url = ItemLocator.url(of: path)
                mailboxes.post(presenter, on: queue) { box.presenter.presentedItemDidMove(to: url) }
            }
        }
    }

    /// A change of an entry of a directory presenter's item (its own changes come under its item's token).
    private func reportEntry(_ change: WatchedChange) {
        let presenter = PresenterID(change.token & ~(1 << 63))
        guard let entry = registry.entry(presenter), let directory = entry.path else { return }
        let box = entry.box
        let queue = box.presenter.presentedItemOperationQueue
        let url = ItemLocator.url(of: ItemLocator.path(ofAbsoluteOrRelative: change.path, resolvingLastComponent: false))
        // The directory's own loss or an overflow: its item's token tells of the directory itself.
        let isDirectoryItself = change.path == directory.description
        switch change.kind {
        case .contentsChanged where !isDirectoryItself:
            mailboxes.post(presenter, on: queue) { box.presenter.presentedSubitemDidChange(at: url) }
        case .overflow, .contentsChanged:
            mailboxes.post(presenter, on: queue) { box.presenter.presentedItemDidChange() }
        case .metadataChanged:
            return
        case .deleted, .movedAway(to: nil):
            guard !isDirectoryItself else { return }
            mailboxes.post(presenter, on: queue) {
                box.presenter.accommodatePresentedSubitemDeletion(at: url) { _ in }
            }
        case .movedAway(let destination?):
            guard !isDirectoryItself else { return }
            let newURL = ItemLocator.url(
                of: ItemLocator.path(ofAbsoluteOrRelative: destination, resolvingLastComponent: false))
            mailboxes.post(presenter, on: queue) { box.presenter.presentedSubitem(at: url, didMoveTo: newURL) }
        }
    }
}
