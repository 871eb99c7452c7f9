import CoordinationArbiter
import Foundation
import Synchronization

/// Delivers the arbiter's messages to presenters on their operation queues and sends back their replies.
struct PresenterMessenger: Sendable {
    let registry: PresenterRegistry
    let failures: PresenterFailureTable
    let reply: @Sendable (MessageID, PresenterFailure?) -> Void
    /// One operation at a time per presenter carries all its pending messages, in order.
    let mailboxes = PresenterMailboxes()

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
            _ = registry.updatePath(delivery.presenter, to: path)
            let url = ItemLocator.url(of: path)
            mailboxes.post(presenter, on: queue) { box.presenter.presentedItemDidMove(to: url) }
        case .subitemDidChange(let path):
            let url = ItemLocator.url(of: path)
            mailboxes.post(presenter, on: queue) { box.presenter.presentedSubitemDidChange(at: url) }
        case .subitemDidAppear(let path):
            let url = ItemLocator.url(of: path)
            mailboxes.post(presenter, on: queue) { box.presenter.presentedSubitemDidAppear(at: url) }
        case .subitemDidMove(let from, let to):
            let old = ItemLocator.url(of: from)
            let new = ItemLocator.url(of: to)
            mailboxes.post(presenter, on: queue) { box.presenter.presentedSubitem(at: old, didMoveTo: new) }
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

/// Presenters' errors, kept in this process while the arbiter refers to them by number.
final class PresenterFailureTable: Sendable {
    private let errors = Mutex<[UInt64: any Error]>([:])
    private let next = Atomic<UInt64>(1)

    /// Keeps `error` and returns the arbiter's opaque encoding of it.
    func store(_ error: any Error) -> PresenterFailure {
        let key = next.wrappingAdd(1, ordering: .relaxed).oldValue
        errors.withLock { $0[key] = error }
        return PresenterFailure(encoded: withUnsafeBytes(of: key.littleEndian) { Array($0) })
    }

    /// The error behind an encoding (removed from the table).
    func take(_ failure: PresenterFailure) -> any Error {
        guard failure.encoded.count == 8 else { return FileCoordinationError.presenterFailed(UnknownPresenterError()) }
        let key = failure.encoded.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        if let error = errors.withLock({ $0.removeValue(forKey: key) }) { return error }
        return FileCoordinationError.presenterFailed(UnknownPresenterError())
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
