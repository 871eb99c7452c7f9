import CoordinationArbiter
import Foundation
import Synchronization

/// Delivers the arbiter's messages to presenters on their operation queues and sends back their replies.
struct PresenterMessenger: Sendable {
    let registry: PresenterRegistry
    let failures: PresenterFailureTable
    let reply: @Sendable (MessageID, PresenterFailure?) -> Void
    /// One operation at a time per presenter carries all its pending messages, in order.
    let mailboxes: PresenterMailboxes
    /// Keeps coordinated writes from being reported again as uncoordinated changes.
    let reporter: UncoordinatedChangeReporter

    func deliver(_ delivery: PresenterDelivery) {
        let message = delivery.message
        guard let entry = registry.entry(delivery.presenter) else {
            // Unregistered meanwhile: it owes nothing.
            if message.expectsReply { reply(delivery.id, nil) }
            return
        }
        let box = entry.box
        let queue = box.presenter.presentedItemOperationQueue
        let id = delivery.id
        let presenter = delivery.presenter
        let once = ReplyOnce(id: id, reply: reply)
        let failures = self.failures
        let registry = self.registry
        let mailboxes = self.mailboxes
        switch message {
        case .relinquishToWriter:
            reporter.relinquishing(presenter, message: id)
        case .reacquire(let relinquishMessage):
            reporter.reacquired(relinquishMessage)
        default:
            break
        }
        switch message {
        case .relinquishToReader, .relinquishToWriter:
            let handBack: @Sendable ((@Sendable () -> Void)?) -> Void = { reacquirer in
                if case .some(let wanted) = registry.reacquirerHandedBack(presenter, id, reacquirer), let wanted {
                    mailboxes.post(presenter, on: queue) { wanted() }
                }
                once.send(nil)
            }
            mailboxes.post(presenter, on: queue) {
                if case .relinquishToReader = message {
                    box.presenter.relinquishPresentedItem(toReader: handBack)
                } else {
                    box.presenter.relinquishPresentedItem(toWriter: handBack)
                }
            }
        case .reacquire(let relinquishMessage):
            if case .some(let reacquirer) = registry.reacquirerWanted(delivery.presenter, relinquishMessage),
                let reacquirer
            {
                mailboxes.post(presenter, on: queue) { reacquirer() }
            }
        case .savePresentedItemChanges:
            mailboxes.post(presenter, on: queue) {
                box.presenter.savePresentedItemChanges { error in once.send(error.map(failures.store)) }
            }
        case .accommodateDeletion:
            mailboxes.post(presenter, on: queue) {
                box.presenter.accommodatePresentedItemDeletion { error in once.send(error.map(failures.store)) }
            }
        case .accommodateSubitemDeletion(let path):
            let url = ItemLocator.url(of: path)
            mailboxes.post(presenter, on: queue) {
                box.presenter.accommodatePresentedSubitemDeletion(at: url) { error in
                    once.send(error.map(failures.store))
                }
            }
        case .didChange:
            mailboxes.post(presenter, on: queue) { box.presenter.presentedItemDidChange() }
        case .didMove(let path):
            if registry.updatePath(delivery.presenter, to: path) { reporter.presenterMoved(delivery.presenter, path: path) }
            let url = ItemLocator.url(of: path)
            mailboxes.post(presenter, on: queue) { box.presenter.presentedItemDidMove(to: url) }
        case .subitemDidChange(let path):
            let url = ItemLocator.url(of: path)
            mailboxes.post(presenter, on: queue) { box.presenter.presentedSubitemDidChange(at: url) }
        case .subitemDidAppear(let path):
            let url = ItemLocator.url(of: path)
            mailboxes.post(presenter, on: queue) {
                switch box.presenter.subitemCreationReport {
                case .appeared: box.presenter.presentedSubitemDidAppear(at: url)
                case .changed: box.presenter.presentedSubitemDidChange(at: url)
                }
            }
        case .subitemDidMove(let from, let to):
            let old = ItemLocator.url(of: from)
            let new = ItemLocator.url(of: to)
            mailboxes.post(presenter, on: queue) { box.presenter.presentedSubitem(at: old, didMoveTo: new) }
        case .versionsChanged(let notice):
            // A notice whose version does not decode came from a broken peer: it is dropped.
            guard let version = FileVersion(noticeEncoding: notice.version) else { return }
            mailboxes.post(presenter, on: queue) {
                switch notice.change {
                case .gained: box.presenter.presentedItemDidGain(version)
                case .lost: box.presenter.presentedItemDidLose(version)
                case .resolved: box.presenter.presentedItemDidResolveConflict(version)
                }
            }
        case .subitemVersionsChanged(let path, let notice):
            guard let version = FileVersion(noticeEncoding: notice.version) else { return }
            let url = ItemLocator.url(of: path)
            mailboxes.post(presenter, on: queue) {
                switch notice.change {
                case .gained: box.presenter.presentedSubitem(at: url, didGain: version)
                case .lost: box.presenter.presentedSubitem(at: url, didLose: version)
                case .resolved: box.presenter.presentedSubitem(at: url, didResolve: version)
                }
            }
        }
    }
}

/// Sends a presenter's reply at most once, however often it calls its completion handler.
final class ReplyOnce: Sendable {
    private let sent = Atomic<Bool>(false)
    private let id: MessageID
    private let reply: @Sendable (MessageID, PresenterFailure?) -> Void

    init(id: MessageID, reply: @escaping @Sendable (MessageID, PresenterFailure?) -> Void) {
        self.id = id
        self.reply = reply
    }

    func send(_ failure: PresenterFailure?) {
        guard !sent.exchange(true, ordering: .acquiringAndReleasing) else { return }
        reply(id, failure)
    }
}

/// Presenters' errors on their way to the requests they failed.
///
/// A failure travels as a ``RemotePresenterError`` (domain, code, message), which any process can read. The
/// process where the presenter failed also keeps the error itself for a while, so that a request of that same
/// process gets the presenter's very error back, as Apple passes it; other processes get an `NSError` with the
/// error's domain, code and description.
final class PresenterFailureTable: Sendable {
    /// The most errors kept for local requests; older ones are dropped (their requests get the `NSError`).
    static let capacity = 256
    private let recent = Mutex<[(encoded: [UInt8], error: any Error)]>([])

    /// Keeps `error` and returns the arbiter's encoding of it.
    func store(_ error: any Error) -> PresenterFailure {
        let bridged = error as NSError
        let remote = RemotePresenterError(domain: bridged.domain, code: Int64(bridged.code), message: "\(error)")
        let failure = remote.presenterFailure
        recent.withLock { recent in
            if recent.count >= Self.capacity { recent.removeFirst() }
            recent.append((failure.encoded, error))
        }
        return failure
    }

    /// The error behind an encoding: the original if this process kept it, else an `NSError` made from it.
    func take(_ failure: PresenterFailure) -> any Error {
        let kept = recent.withLock { recent -> (any Error)? in
            guard let index = recent.firstIndex(where: { $0.encoded == failure.encoded }) else { return nil }
            return recent.remove(at: index).error
        }
        if let kept { return kept }
        guard let remote = RemotePresenterError(failure) else {
            return FileCoordinationError.presenterFailed(UnknownPresenterError())
        }
        return NSError(
            domain: remote.domain, code: Int(truncatingIfNeeded: remote.code),
            userInfo: [NSLocalizedDescriptionKey: remote.message])
    }
}

/// A presenter failed, but its error is not available here.
struct UnknownPresenterError: Error, CustomStringConvertible {
    var description: String { "a file presenter reported an error" }
}

/// Per-presenter queues of pending messages: a message for a presenter that already has an operation pending on
/// its queue joins that operation instead of scheduling another. Messages keep their order, and a round's
/// `presentedItemDidChange` and reacquirer cost one hop onto the presenter's queue instead of two.
final class PresenterMailboxes: Sendable {
    private let pending = Mutex<[PresenterID: [@Sendable () -> Void]]>([:])

    /// Runs `work` on `queue` after every message posted before it for `presenter`.
    func post(_ presenter: PresenterID, on queue: OperationQueue, _ work: @escaping @Sendable () -> Void) {
        let schedule = pending.withLock { pending -> Bool in
            if pending[presenter] != nil {
                pending[presenter]!.append(work)
                return false
            }
            pending[presenter] = [work]
            return true
        }
        if schedule { queue.addOperation { self.drain(presenter) } }
    }

    /// Runs the presenter's messages until none are left; the entry is removed when it is found empty.
    private func drain(_ presenter: PresenterID) {
        while true {
            let batch = pending.withLock { pending -> [@Sendable () -> Void] in
                guard let waiting = pending[presenter], !waiting.isEmpty else {
                    pending[presenter] = nil
                    return []
                }
                pending[presenter] = []
                return waiting
            }
            if batch.isEmpty { return }
            for work in batch { work() }
        }
    }
}
