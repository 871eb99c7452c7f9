import Synchronization

/// Hands every event the store records to every connected `GET /events` client, with keep-alive ticks.
final class EventBroadcaster: Sendable {
    /// What a subscriber receives.
    enum Item: Sendable {
        /// An event, already in the log (it has its id).
        case event(StoreEvent)
        /// Time to send a keep-alive comment.
        case keepAlive
    }

    private struct State {
        var subscribers: [Int: AsyncStream<Item>.Continuation] = [:]
        var next = 0
    }

    private let state = Mutex(State())
    private let keepAliveInterval: Duration

    /// Makes a broadcaster whose subscribers get a keep-alive tick after every `keepAliveInterval`.
    init(keepAliveInterval: Duration) {
        self.keepAliveInterval = keepAliveInterval
    }

    /// A new subscription: live events from now on, and keep-alive ticks. Ends when the stream is dropped.
    func subscribe() -> AsyncStream<Item> {
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingNewest(10_000))
        let id = state.withLock { state -> Int in
            defer { state.next += 1 }
            state.subscribers[state.next] = continuation
            return state.next
        }
        let interval = keepAliveInterval
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                continuation.yield(.keepAlive)
            }
        }
        continuation.onTermination = { [weak self] _ in
            ticker.cancel()
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends an event to every subscriber.
    func publish(_ event: StoreEvent) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(.event(event)) }
    }

    /// Ends every subscription (at shutdown).
    func finishAll() {
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
