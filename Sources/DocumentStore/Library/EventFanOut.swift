import Logging
import PostgresNIO
import Synchronization

/// Which live fan-out a library uses: how the events in its log reach its `GET /events` clients.
public enum EventFanOutKind: Sendable {
    /// One node: each event this node records goes to its clients as it commits.
    case local
    /// A cluster on one PostgreSQL: every node's clients get every node's events, read from the shared log in id
    /// order, woken by `LISTEN quire_events` and, should a notification be lost (a dropped connection), by a poll
    /// of the log every `pollInterval`.
    case postgres(PostgresClient, pollInterval: Duration = .seconds(1))
}

/// How the events in the log reach this node's live subscribers (see ``EventFanOutKind``).
protocol EventFanOut: Sendable {
    /// This node appended `event` to the log.
    func committed(_ event: StoreEvent)
    /// Delivers events until the task is cancelled (the local fan-out has nothing to do).
    func run() async
}

/// The one-node fan-out: an event goes to the subscribers when it commits.
struct LocalEventFanOut: EventFanOut {
    let broadcaster: EventBroadcaster

    func committed(_ event: StoreEvent) { broadcaster.publish(event) }

    func run() async {}
}

/// The cluster's fan-out: the shared log is the truth. One follower per node reads the events after the last one
/// it handed on, in id order, and hands them to the subscribers: every node's clients see every node's events in
/// one order, none twice, none skipped (ids are gap-free and commit in order: ``PostgresCatalog``). It reads when
/// this node commits an event, when PostgreSQL notifies `quire_events`, and every `pollInterval` in any case.
final class LogFollowingFanOut: EventFanOut {
    private let broadcaster: EventBroadcaster
    private let log: any EventLog
    private let client: PostgresClient
    private let pollInterval: Duration
    private let logger: Logger
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    /// The id of the last event handed on; nil until the follower starts (it starts after the log's last id).
    private let delivered = Mutex<Int64?>(nil)

    init(
        broadcaster: EventBroadcaster, log: any EventLog, client: PostgresClient, pollInterval: Duration,
        logger: Logger
    ) {
        self.broadcaster = broadcaster
        self.log = log
        self.client = client
        self.pollInterval = pollInterval
        self.logger = logger
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func committed(_ event: StoreEvent) { wake.yield() }

    /// The id the follower starts after: the log's last id when the node starts (subscribers connected before
    /// that have nothing to miss; a client that has seen less resumes from the log with `Last-Event-ID`).
    func start() async throws {
        let last = try await log.lastEventID()
        delivered.withLock { if $0 == nil { $0 = last } }
    }

    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.listen() }
            group.addTask { await self.tick() }
            group.addTask { await self.follow() }
        }
    }

    /// Reads and hands on the new events each time it is woken.
    private func follow() async {
        while !Task.isCancelled {
            if delivered.withLock({ $0 }) == nil {
                do {
                    try await start()
                } catch {
                    logger.warning("the event follower cannot read the log yet", metadata: ["error": "\(error)"])
                }
            }
            await catchUp()
            var iterator = wakes.makeAsyncIterator()
            guard await iterator.next() != nil else { return }
        }
    }

    /// Hands on every event after the last one handed on, oldest first.
    private func catchUp() async {
        while !Task.isCancelled, let after = delivered.withLock({ $0 }) {
            let events: [StoreEvent]
            do {
                events = try await log.events(after: after, limit: 500)
            } catch {
                logger.warning("the event follower cannot read the log", metadata: ["error": "\(error)"])
                return
            }
            for event in events {
                guard let id = event.id else { continue }
                broadcaster.publish(event)
                delivered.withLock { $0 = id }
            }
            if events.count < 500 { return }
        }
    }

    /// Wakes the follower every poll interval: a notification lost with a dropped connection costs at most that.
    private func tick() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: pollInterval)
            wake.yield()
        }
    }

    /// Listens to `quire_events` on a connection of its own, reconnecting after a failure; each notification
    /// wakes the follower.
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    let notifications = try await connection.listen(PostgresCatalog.notificationChannel)
                    self.wake.yield()  // whatever was appended while no one listened
                    for try await _ in notifications { self.wake.yield() }
                }
            } catch {
                if Task.isCancelled { return }
                logger.debug("listening to the event log's notifications failed", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }
}
