#if canImport(Glibc)
    import Glibc
#endif
import FileCoordination
import Foundation

/// Registers presenters with file coordination on behalf of whoever shows or serves documents, in batches,
/// and takes them all out of coordination for a while (``suspend()``) and back (``resume()``).
///
/// Nutrient's `FilePresenterCoordinator`: `observe(document.filePresenters)` when a document is opened,
/// `unobserve` when it is closed. On Apple platforms observed presenters leave coordination when the app
/// goes to the background; a Linux service has no background, so ``suspend()`` and ``resume()`` are called
/// explicitly (for example around maintenance). On resume, each presenter whose file changed meanwhile gets
/// one `presentedItemDidChange()` (or, if the file disappeared, one `accommodatePresentedItemDeletion`) on
/// its queue, so nothing that happened while suspended goes unnoticed.
///
/// A ``CoordinatedFileDataProvider`` observed here also has the inode of its file watched (`InodeWatch`) while it
/// is registered: a hard link made to the file from another directory, or a write through one, reaches it too.
public final class FilePresenterCoordinator: @unchecked Sendable {
    /// The coordinator every document user shares.
    public static let shared = FilePresenterCoordinator()

    private struct Observed {
        let presenter: any FilePresenter
        /// When it was first observed: the order ``observedPresenters`` gives (sorted when asked, so that observing
        /// or unobserving one presenter costs the same among 100,000 as among ten).
        let sequence: UInt64
        /// The file's state when coordination was suspended (nil while registered).
        var stamp: FileStamp?
    }

    private struct State {
        var observed: [ObjectIdentifier: Observed] = [:]
        var nextSequence: UInt64 = 0
        var isSuspended = false

        /// The observed presenters in the order they were first observed.
        var inOrder: [(key: ObjectIdentifier, value: Observed)] {
            observed.sorted { $0.value.sequence < $1.value.sequence }
        }
    }

    /// Presenters are not `Sendable`, so the state sits behind a plain lock rather than a `Mutex`.
    private let lock = NSLock()
    private var storage = State()

    /// Makes a coordinator of its own (tests; everyone else shares ``shared``).
    init() {}

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.withLock { body(&storage) }
    }

    /// The presenters being observed, in the order they were first observed.
    public var observedPresenters: [any FilePresenter] {
        withState { state in state.inOrder.map(\.value.presenter) }
    }

    /// Whether ``suspend()`` is in effect.
    public var isSuspended: Bool { withState { $0.isSuspended } }

    /// Registers presenters with `FileCoordinator` (unless suspended: then on ``resume()``). Observing a
    /// presenter twice is harmless.
    public func observe(_ filePresenters: [any FilePresenter]) {
        let (added, suspended) = withState { state -> ([any FilePresenter], Bool) in
            var added: [any FilePresenter] = []
            for presenter in filePresenters {
                let key = ObjectIdentifier(presenter)
                guard state.observed[key] == nil else { continue }
                state.observed[key] = Observed(presenter: presenter, sequence: state.nextSequence)
                state.nextSequence += 1
                added.append(presenter)
            }
            return (added, state.isSuspended)
        }
        guard !suspended else {
            // The files' state, stat'ed outside the lock, is what `resume()` compares with.
            note(added.map { ($0, FileStamp($0.presentedItemURL)) })
            return
        }
        for presenter in added {
            FileCoordinator.addFilePresenter(presenter)
            (presenter as? CoordinatedFileDataProvider)?.startWatchingInode()
        }
    }

    /// Unregisters presenters; they receive no further messages. Unobserving an unknown presenter is harmless.
    public func unobserve(_ filePresenters: [any FilePresenter]) {
        let removed = withState { state -> [any FilePresenter] in
            var removed: [any FilePresenter] = []
            for presenter in filePresenters {
                let key = ObjectIdentifier(presenter)
                guard state.observed.removeValue(forKey: key) != nil else { continue }
                removed.append(presenter)
            }
            return removed
        }
        for presenter in removed {
            FileCoordinator.removeFilePresenter(presenter)
            (presenter as? CoordinatedFileDataProvider)?.stopWatchingInode()
        }
    }

    /// Registers an observed presenter again, for a file that was deleted and created anew (a new file is a new
    /// inode: its watch and its place in coordination start over). Does nothing for a presenter not observed,
    /// or while suspended.
    public func reload(_ filePresenter: any FilePresenter) {
        let isRegistered = withState { state in
            state.observed[ObjectIdentifier(filePresenter)] != nil && !state.isSuspended
        }
        guard isRegistered else { return }
        FileCoordinator.removeFilePresenter(filePresenter)
        FileCoordinator.addFilePresenter(filePresenter)
    }

    /// Takes every observed presenter out of coordination, noting the state of its file.
    public func suspend() {
        let presenters = withState { state -> [any FilePresenter] in
            guard !state.isSuspended else { return [] }
            state.isSuspended = true
            return state.inOrder.map(\.value.presenter)
        }
        note(presenters.map { ($0, FileStamp($0.presentedItemURL)) })
        for presenter in presenters {
            FileCoordinator.removeFilePresenter(presenter)
            (presenter as? CoordinatedFileDataProvider)?.stopWatchingInode()
        }
    }

    /// Keeps the state of presenters' files, measured outside the lock, for ``resume()`` to compare with: only
    /// while suspended, and only for presenters still observed.
    private func note(_ stamps: [(any FilePresenter, FileStamp)]) {
        withState { state in
            guard state.isSuspended else { return }
            for (presenter, stamp) in stamps {
                state.observed[ObjectIdentifier(presenter)]?.stamp = stamp
            }
        }
    }

    /// Registers every observed presenter again and tells each whose file changed while suspended: one
    /// `presentedItemDidChange()`, or `accommodatePresentedItemDeletion` if the file is gone.
    public func resume() {
        let presenters = withState { state -> [(any FilePresenter, FileStamp?)] in
            guard state.isSuspended else { return [] }
            state.isSuspended = false
            return state.inOrder.map { key, observed in
                state.observed[key]?.stamp = nil
                return (observed.presenter, observed.stamp)
            }
        }
        for (presenter, stamp) in presenters {
            FileCoordinator.addFilePresenter(presenter)
            (presenter as? CoordinatedFileDataProvider)?.startWatchingInode()
            let now = FileStamp(presenter.presentedItemURL)
            guard let stamp, stamp != now else { continue }
            let box = PresenterBox(presenter)
            if stamp.exists && !now.exists {
                presenter.presentedItemOperationQueue.addOperation {
                    box.presenter.accommodatePresentedItemDeletion { _ in }
                }
            } else {
                presenter.presentedItemOperationQueue.addOperation { box.presenter.presentedItemDidChange() }
            }
        }
    }
}

/// Carries a presenter onto its own queue (presenters are not `Sendable`; their queue is theirs).
private struct PresenterBox: @unchecked Sendable {
    let presenter: any FilePresenter
    init(_ presenter: any FilePresenter) { self.presenter = presenter }
}

/// What tells whether a file changed: its identity, size and change times.
struct FileStamp: Equatable {
    var exists = false
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var size: Int64 = 0
    var modified = timespec()
    var changed = timespec()

    init(_ url: URL?) {
        guard let url, url.isFileURL, let info = try? FileSystemCalls.status(url.path) else { return }
        exists = true
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim
        changed = info.st_ctim
    }

    static func == (lhs: FileStamp, rhs: FileStamp) -> Bool {
        lhs.exists == rhs.exists && lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
            && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
            && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
    }
}
