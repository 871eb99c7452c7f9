import CoordinationArbiter
import Dispatch
import Synchronization

/// The arbiter behind a lock in this process (`QUIRE_COORDINATION_SCOPE=process`).
///
/// One executor, as async-http-client's pool: take the lock, feed the event, queue the actions, release; then
/// one thread at a time performs queued actions in order (resuming waiters and handing messages to presenter
/// queues, all non-blocking), so presenters see messages in the order the arbiter issued them.
final class InProcessArbiterHost: ArbiterEndpoint, @unchecked Sendable {
    fileprivate struct State {
        var arbiter = Arbiter()
        var pending: [ArbiterAction] = []
        var draining = false
        var timers: [RequestID: TimerItem] = [:]
    }

    /// This process, as the arbiter's only client.
    static let client = ClientID(1)

    private let state = Mutex(State())
    private let perform: @Sendable (ClientAction) -> Void
    private let timerQueue = DispatchQueue(label: "quire.coordination.timers")

    /// Makes a host whose actions for this process go to `perform`.
    init(perform: @escaping @Sendable (ClientAction) -> Void) {
        self.perform = perform
    }

    func submit(_ event: ClientEvent) {
        let now = SystemInterface.now()
        let client = Self.client
        let batch = state.withLock { state -> [ArbiterAction]? in
            let actions: [ArbiterAction]
            switch event {
            case .presenterRegistered(let presenter, let purpose, let path, let observes):
                actions = state.arbiter.presenterRegistered(
                    presenter, client: client, purpose: purpose, path: path, observesUncoordinatedChanges: observes)
            case .presenterMoved(let presenter, let path):
                actions = state.arbiter.presenterMoved(presenter, from: client, to: path)
            case .presenterRemoved(let presenter):
                actions = state.arbiter.presenterRemoved(presenter, from: client)
            case .accessRequested(let request, let purpose, let intents, let deadline, let nestedIn):
                actions = state.arbiter.accessRequested(
                    request, client: client, purpose: purpose, intents: intents, deadline: deadline,
                    nestedIn: nestedIn, now: now)
            case .accessEnded(let request, let presence):
                actions = state.arbiter.accessEnded(request, from: client, presence: presence)
            case .itemMoved(let request, let from, let to):
                actions = state.arbiter.itemMoved(request, from: client, at: from, to: to)
            case .cancelRequested(let request):
                actions = state.arbiter.cancelRequested(request, from: client)
            case .presenterReplied(let message, let failure):
                actions = state.arbiter.presenterReplied(message, from: client, failure: failure)
            case .itemVersionsChanged(let path, let notice):
                actions = state.arbiter.itemVersionsChanged(at: path, notice)
            }
            return state.enqueue(actions)
        }
        if let batch { drain(batch) }
    }

    func snapshot() throws(FileCoordinationError) -> WireSnapshot {
        WireSnapshot(state.withLock { $0.arbiter.snapshot() }) { _ in SocketSystem.processID }
    }

    private func deadlineReached(_ request: RequestID) {
        let now = SystemInterface.now()
        let batch = state.withLock { state -> [ArbiterAction]? in
            state.timers[request] = nil
            return state.enqueue(state.arbiter.deadlineReached(request, now: now))
        }
        if let batch { drain(batch) }
    }

    /// Performs `first`, then the actions queued meanwhile, until none are left; only one thread drains at a
    /// time. Uncontended, the arbiter's own array is performed as is: nothing is queued or copied.
    private func drain(_ first: [ArbiterAction]) {
        var batch = first
        while true {
            for action in batch { run(action) }
            let next = state.withLock { state -> [ArbiterAction]? in
                if state.pending.isEmpty {
                    state.draining = false
                    return nil
                }
                defer { state.pending = [] }
                return state.pending
            }
            guard let next else { return }
            batch = next
        }
    }

    private func run(_ action: ArbiterAction) {
        switch action {
        case .grant(let request, _, let paths, let reportsPresence):
            perform(.grant(request, paths: paths, reportsPresence: reportsPresence))
        case .fail(let request, _, let failure):
            perform(.fail(request, failure))
        case .send(let delivery):
            perform(.deliver(delivery))
        case .startTimer(let request, let deadline):
            let item = DispatchWorkItem { [weak self] in self?.deadlineReached(request) }
            let previous = state.withLock { state in
                defer { state.timers[request] = TimerItem(item: item) }
                return state.timers[request]
            }
            previous?.item.cancel()
            let now = SystemInterface.now()
            let delay = deadline.nanoseconds > now.nanoseconds ? deadline.nanoseconds - now.nanoseconds : 0
            timerQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(delay, UInt64(Int.max)))), execute: item)
        case .cancelTimer(let request):
            state.withLock { $0.timers.removeValue(forKey: request) }?.item.cancel()
        case .failClient:
            // Only this process talks to an in-process arbiter: a violation is a bug in this module. The
            // arbiter changed nothing, so the process goes on; the waiter concerned is failed by its caller.
            break
        }
    }
}

extension InProcessArbiterHost.State {
    /// Queues actions if another thread is draining; otherwise returns them for the caller to drain (nobody
    /// else is draining, and nothing is pending then).
    fileprivate mutating func enqueue(_ actions: [ArbiterAction]) -> [ArbiterAction]? {
        guard !actions.isEmpty else { return nil }
        if draining {
            pending.append(contentsOf: actions)
            return nil
        }
        draining = true
        return actions
    }
}

/// A timer's work item, kept under the host's lock (Dispatch's items are thread-safe but not marked Sendable).
struct TimerItem: @unchecked Sendable {
    let item: DispatchWorkItem
}
