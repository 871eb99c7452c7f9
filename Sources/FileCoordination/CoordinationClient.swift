import CoordinationArbiter
import Foundation
import Synchronization

/// One domain's side of file coordination in this process: its presenters, its waiting requests, and the way
/// to its arbiter.
final class CoordinationClient: Sendable {
    /// The default domain's client.
    static var shared: CoordinationClient { CoordinationDomain.default.client }

    let configuration: CoordinationConfiguration
    /// Set for a configuration that can never work (an invalid scope in the environment): every request fails
    /// with it.
    let permanentFailure: String?
    let registry = PresenterRegistry()
    let failures = PresenterFailureTable()
    let mailboxes = PresenterMailboxes()
    let reporter: UncoordinatedChangeReporter
    private let waiting = Mutex<[RequestID: @Sendable (ClientAction) -> Void]>([:])
    private let nextRequest = Atomic<UInt64>(1)
    private let endpointStorage = Mutex<(any ArbiterEndpoint)?>(nil)
    /// This client, for the reporter's callback (made before the client is).
    private let relay: ClientRelay

    /// Makes a client; nothing is connected until the endpoint is first used.
    init(configuration: CoordinationConfiguration, permanentFailure: String?) {
        self.configuration = configuration
        self.permanentFailure = permanentFailure
        let relay = ClientRelay()
        self.relay = relay
        reporter = UncoordinatedChangeReporter(
            registry: registry, mailboxes: mailboxes, debounce: configuration.uncoordinatedChangeDebounce,
            logger: configuration.logger
        ) { presenter, path in
            relay.client?.endpoint.submit(.presenterMoved(presenter, path: path))
        }
        relay.client = self
    }

    /// The arbiter endpoint, made on first use: the shared arbiter (scope `user`), connected to or hosted by
    /// this process, or this domain's own in this process (`process`).
    var endpoint: any ArbiterEndpoint {
        endpointStorage.withLock { stored in
            if let stored { return stored }
            let made = makeEndpoint()
            stored = made
            return made
        }
    }

    /// A new endpoint of this client's configuration.
    private func makeEndpoint() -> any ArbiterEndpoint {
        let messenger = PresenterMessenger(
            registry: registry, failures: failures, reply: { [unowned self] message, failure in
                self.endpoint.submit(.presenterReplied(message, failure: failure))
            }, mailboxes: mailboxes, reporter: reporter)
        let perform: @Sendable (ClientAction) -> Void = { [unowned self] action in
            self.handle(action, messenger: messenger)
        }
        if let permanentFailure {
            return SharedArbiterConnection(failing: permanentFailure, paths: configuration.paths, perform: perform)
        }
        switch configuration.scope {
        case .process: return InProcessArbiterHost(perform: perform)
        case .user: return SharedArbiterConnection(paths: configuration.paths, perform: perform)
        }
    }

    /// Registers a presenter with the arbiter (and the file watcher, if it observes uncoordinated changes).
    func presenterRegistered(_ id: PresenterID, purpose: PurposeID, path: ItemPath?, observes: Bool) {
        reporter.presenterRegistered(id, path: path, observes: observes)
        endpoint.submit(.presenterRegistered(id, purpose: purpose, path: path, observesUncoordinatedChanges: observes))
    }

    /// Tells the arbiter (and the file watcher) where a presenter's item is now.
    func presenterMoved(_ id: PresenterID, path: ItemPath?) {
        reporter.presenterMoved(id, path: path)
        endpoint.submit(.presenterMoved(id, path: path))
    }

    /// Unregisters a presenter from the arbiter and the file watcher.
    func presenterRemoved(_ id: PresenterID) {
        reporter.presenterRemoved(id)
        endpoint.submit(.presenterRemoved(id))
    }

    /// Ends a granted access of this process; `presence` reports what it did to its items, if the grant asked.
    func accessEnded(_ request: RequestID, presence: [ItemPresence?] = []) {
        endpoint.submit(.accessEnded(request, presence: presence))
        if reporter.isActive { reporter.finished(request) }
    }

    /// The endpoint if it was made already (status queries must not start hosting as a side effect).
    var existingEndpoint: (any ArbiterEndpoint)? {
        endpointStorage.withLock { $0 }
    }

    /// Waits for the outcome `waiter` will get. With the shared arbiter, the waiting thread reads the socket
    /// itself while nobody else does (``SharedArbiterConnection/lead(until:)``), so an uncontended access costs
    /// about one round trip.
    func outcome(of waiter: AccessWaiter) -> Result<[URL], any Error> {
        if let connection = endpointStorage.withLock({ $0 }) as? SharedArbiterConnection {
            connection.lead { waiter.isResolved }
        }
        return waiter.wait()
    }

    /// A new request id, unique in this process.
    func makeRequestID() -> RequestID {
        RequestID(nextRequest.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    /// Submits a request; `outcome` is called once with its grant or failure (possibly before this returns).
    func request(
        _ id: RequestID, purpose: PurposeID, intents: [AccessIntent], deadline: Instant?, nestedIn: RequestID?,
        outcome: @escaping @Sendable (ClientAction) -> Void
    ) {
        waiting.withLock { $0[id] = outcome }
        if reporter.isActive {
            reporter.requested(id, writeIndices: intents.indices.filter { intents[$0].writes })
        }
        endpoint.submit(.accessRequested(id, purpose: purpose, intents: intents, deadline: deadline, nestedIn: nestedIn))
    }

    private func handle(_ action: ClientAction, messenger: PresenterMessenger) {
        switch action {
        case .grant(let request, let paths, _):
            if reporter.isActive { reporter.granted(request, paths: paths) }
            waiting.withLock { $0.removeValue(forKey: request) }?(action)
        case .fail(let request, _), .unavailable(let request, _):
            if reporter.isActive { reporter.finished(request) }
            waiting.withLock { $0.removeValue(forKey: request) }?(action)
        case .deliver(let delivery):
            messenger.deliver(delivery)
        }
    }
}

/// Blocks a thread until its request is granted or failed.
///
/// A grant usually follows within microseconds (another thread's access ends), so the waiter spins briefly
/// before it sleeps: a futex wake-up costs more than the whole hand-over. Each thread reuses one waiter
/// (``acquire()``), reset after every wait, so an uncontended access allocates no waiter, lock or semaphore;
/// the semaphore is signalled only when the waiting thread has committed to sleep, so no stray signal is
/// left for the next use.
final class AccessWaiter: @unchecked Sendable {
    /// The waiting thread has not gone to sleep yet and no outcome has come.
    private static let waiting: UInt8 = 0
    /// The outcome is recorded.
    private static let resolved: UInt8 = 1
    /// The waiting thread sleeps on the semaphore (or is about to).
    private static let sleeping: UInt8 = 2
    /// How often the waiting thread checks for the outcome before it sleeps.
    private static let spinIterations = 20_000
    /// Each thread's reusable waiter.
    private static let local = ThreadLocal { AccessWaiter() }

    /// Written once by `resolve` before `phase` becomes `resolved`; read and cleared by the waiting thread.
    private var outcome: Result<[URL], any Error>?
    /// `waiting`, `resolved` or `sleeping`; `resolve` and the waiting thread hand over through it.
    private let phase = Atomic<UInt8>(AccessWaiter.waiting)
    /// Signalled by `resolve` only if the waiting thread committed to sleep (`phase` was `sleeping`).
    private let semaphore = DispatchSemaphore(value: 0)
    /// Touched only by the owning thread: true between ``acquire()`` and the end of ``wait()``.
    private var inUse = false

    /// This thread's reusable waiter, or a new one if this thread's is in use (never the case today: nothing
    /// coordinates between a submission and its wait).
    static func acquire() -> AccessWaiter {
        let waiter = local.value
        if waiter.inUse { return AccessWaiter() }
        waiter.inUse = true
        return waiter
    }

    /// Whether the outcome is recorded (the waiting thread will not sleep).
    var isResolved: Bool { phase.load(ordering: .acquiring) == Self.resolved }

    /// Records the outcome and wakes the waiting thread.
    func resolve(_ result: Result<[URL], any Error>) {
        outcome = result
        if phase.exchange(Self.resolved, ordering: .acquiringAndReleasing) == Self.sleeping {
            semaphore.signal()
        }
    }

    /// Waits for the outcome, then resets the waiter for its next use. The arbiter fails the request at its
    /// deadline, so the wait is bounded by the coordinator's timeout when it has one.
    func wait() -> Result<[URL], any Error> {
        var spins = 0
        while phase.load(ordering: .acquiring) != Self.resolved {
            spins += 1
            if spins >= Self.spinIterations {
                let (committed, _) = phase.compareExchange(
                    expected: Self.waiting, desired: Self.sleeping, ordering: .acquiringAndReleasing)
                if committed { semaphore.wait() }
                _ = phase.load(ordering: .acquiring)
                break
            }
        }
        let result = outcome!
        outcome = nil
        phase.store(Self.waiting, ordering: .releasing)
        inUse = false
        return result
    }
}

/// A weak way back to a client, for callbacks made before it.
final class ClientRelay: Sendable {
    private let storage = Mutex<WeakClient>(WeakClient())

    private struct WeakClient: @unchecked Sendable {
        weak var client: CoordinationClient?
    }

    /// The client, once made and while it lives.
    var client: CoordinationClient? {
        get { storage.withLock { $0.client } }
        set { storage.withLock { $0.client = newValue } }
    }
}
