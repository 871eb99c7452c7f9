import CoordinationArbiter
import Foundation
import Synchronization

/// This process's side of file coordination: its presenters, its waiting requests, and the way to the arbiter.
final class CoordinationClient: Sendable {
    /// The process-wide client.
    static let shared = CoordinationClient()

    let registry = PresenterRegistry()
    let failures = PresenterFailureTable()
    private let waiting = Mutex<[RequestID: @Sendable (ClientAction) -> Void]>([:])
    private let nextRequest = Atomic<UInt64>(1)
    private let endpointStorage = Mutex<(any ArbiterEndpoint)?>(nil)

    private init() {}

    /// The arbiter endpoint, made on first use. Until the shared host exists every scope uses this process's
    /// own arbiter (`QUIRE_COORDINATION_SCOPE=process`).
    var endpoint: any ArbiterEndpoint {
        endpointStorage.withLock { stored in
            if let stored { return stored }
            let messenger = PresenterMessenger(registry: registry, failures: failures) { [unowned self] message, failure in
                self.endpoint.submit(.presenterReplied(message, failure: failure))
            }
            let made = InProcessArbiterHost { [unowned self] action in
                self.handle(action, messenger: messenger)
            }
            stored = made
            return made
        }
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
        endpoint.submit(.accessRequested(id, purpose: purpose, intents: intents, deadline: deadline, nestedIn: nestedIn))
    }

    private func handle(_ action: ClientAction, messenger: PresenterMessenger) {
        switch action {
        case .grant(let request, _), .fail(let request, _):
            waiting.withLock { $0.removeValue(forKey: request) }?(action)
        case .deliver(let delivery):
            messenger.deliver(delivery)
        }
    }
}

/// Blocks a thread until its request is granted or failed.
///
/// A grant usually follows within microseconds (another thread's access ends), so the waiter spins briefly
/// before it sleeps: a futex wake-up costs more than the whole hand-over.
final class AccessWaiter: @unchecked Sendable {
    private let outcome = Mutex<Result<[URL], any Error>?>(nil)
    private let ready = Atomic<Bool>(false)
    private let semaphore = DispatchSemaphore(value: 0)
    private static let spinIterations = 20_000

    /// Records the outcome and wakes the waiting thread.
    func resolve(_ result: Result<[URL], any Error>) {
        outcome.withLock { $0 = result }
        ready.store(true, ordering: .releasing)
        semaphore.signal()
    }

    /// Waits for the outcome. The arbiter fails the request at its deadline, so the wait is bounded by the
    /// coordinator's timeout when it has one.
    func wait() -> Result<[URL], any Error> {
        var spins = 0
        while !ready.load(ordering: .acquiring) {
            spins += 1
            if spins == Self.spinIterations {
                semaphore.wait()
                break
            }
        }
        return outcome.withLock { $0! }
    }
}
