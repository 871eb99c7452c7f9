import CoreMetrics
import Logging
import Synchronization

/// Hands every event the store records to every connected `GET /events` client, with keep-alive ticks.
///
/// Each subscriber has a bounded buffer. A subscriber that falls so far behind that an item does not fit is
/// ended, never skipped ahead: it still receives what its buffer holds (a gap-free run of events), then its
/// stream finishes, and its client resumes with `Last-Event-ID` from the persisted log. A subscriber whose reader
/// falls behind elsewhere (its connection) is ended the same way by ``Subscription/fellBehind()``.
package final class EventBroadcaster: Sendable {
    /// What a subscriber receives.
    package enum Item: Sendable {
        /// An event, already in the log (it has its id).
        case event(StoreEvent)
        /// Time to send a keep-alive comment.
        case keepAlive
    }

    /// A subscriber's live items, and whether the broadcaster ended them because the subscriber fell behind.
    package struct Subscription: Sendable {
        /// The items: live events from the subscription on, and keep-alive ticks.
        package let items: AsyncStream<Item>
        private let subscriber: Subscriber

        fileprivate init(items: AsyncStream<Item>, subscriber: Subscriber) {
            self.items = items
            self.subscriber = subscriber
        }

        /// Whether the items ended because the subscriber fell behind (more than the buffer's bound, or
        /// ``fellBehind()``; not at shutdown, nor because the subscriber went away): its reader is told where to
        /// resume.
        package var wasCutOff: Bool { subscriber.flag.withLock { $0 } }

        /// Ends the items because the subscriber's reader fell behind elsewhere (its connection holds more unsent
        /// bytes than it may): counted as a cut-off, and ``wasCutOff`` holds from now on.
        package func fellBehind() {
            subscriber.end(reason: "its connection holds too many unsent bytes")
        }
    }

    /// One subscriber: its items' continuation, and whether it was ended for falling behind (set once, counted
    /// once).
    fileprivate final class Subscriber: Sendable {
        /// Set when the subscriber was ended for falling behind.
        let flag = Mutex(false)
        let continuation: AsyncStream<Item>.Continuation
        let counter: CoreMetrics.Counter?
        let logger: Logger

        init(continuation: AsyncStream<Item>.Continuation, counter: CoreMetrics.Counter?, logger: Logger) {
            self.continuation = continuation
            self.counter = counter
            self.logger = logger
        }

        /// Ends the subscription and counts it, the first time only.
        func end(reason: @autoclosure () -> String) {
            let first = flag.withLock { flag in
                defer { flag = true }
                return !flag
            }
            guard first else { return }
            logger.debug(
                "an event stream fell behind (\(reason())): ended it (its client resumes with Last-Event-ID)")
            counter?.increment()
            continuation.finish()
        }
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var next = 0
    }

    private let state = Mutex(State())
    private let keepAliveInterval: Duration
    private let bufferBound: Int
    private let cutOffs: CoreMetrics.Counter?
    private let logger: Logger

    /// Makes a broadcaster whose subscribers get a keep-alive tick after every `keepAliveInterval`, and are
    /// ended when more than `bufferBound` items wait for them (each such end counted in `cutOffs`).
    init(
        keepAliveInterval: Duration, bufferBound: Int = 10_000, cutOffs: CoreMetrics.Counter? = nil,
        logger: Logger = Logger(label: "quire.events")
    ) {
        self.keepAliveInterval = keepAliveInterval
        self.bufferBound = max(1, bufferBound)
        self.cutOffs = cutOffs
        self.logger = logger
    }

    /// A new subscription: live events from now on, and keep-alive ticks. Ends when the stream is dropped, at
    /// shutdown, or when the subscriber falls more than the buffer's bound behind (after what the buffer holds;
    /// ``Subscription/wasCutOff`` says so then).
    package func subscribe() -> Subscription {
        // Oldest kept: what the buffer holds is a run without gaps, and the item that does not fit ends it.
        let (stream, continuation) = AsyncStream.makeStream(
            of: Item.self, bufferingPolicy: .bufferingOldest(bufferBound))
        let subscriber = Subscriber(continuation: continuation, counter: cutOffs, logger: logger)
        let id = state.withLock { state -> Int in
            defer { state.next += 1 }
            state.subscribers[state.next] = subscriber
            return state.next
        }
        let interval = keepAliveInterval
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                self?.deliver(.keepAlive, to: subscriber)
            }
        }
        continuation.onTermination = { [weak self] _ in
            ticker.cancel()
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return Subscription(items: stream, subscriber: subscriber)
    }

    /// Sends an event to every subscriber; ends each subscriber whose buffer is full.
    func publish(_ event: StoreEvent) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { deliver(.event(event), to: subscriber) }
    }

    /// Enqueues `item`, or ends the subscription when it does not fit.
    private func deliver(_ item: Item, to subscriber: Subscriber) {
        switch subscriber.continuation.yield(item) {
        case .enqueued, .terminated: return
        case .dropped: subscriber.end(reason: "\(bufferBound) items behind")
        @unknown default: subscriber.continuation.finish()
        }
    }

    /// How many subscriptions are live.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Ends every subscription (at shutdown).
    func finishAll() {
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.continuation.finish() }
    }
}
