import Foundation
import Logging
import PostgresNIO
import Synchronization

/// What a library needs of a cluster's PostgreSQL beyond its catalog: the connections that carry the event
/// notifications and the per-document locks (see ``buildClusterApplication(configuration:database:controllers:metrics:logger:keepAliveInterval:eventBufferBound:onServerRunning:)``).
/// Both clients must run (as services of the group) while the library is used.
public struct ClusterLink: Sendable {
    /// The client whose connections listen to `quire_events`.
    public var client: PostgresClient
    /// The client whose connections hold the per-document advisory locks (one connection per document
    /// operation running; a pool of its own, so that holding locks never starves the catalog's queries).
    public var lockClient: PostgresClient
    /// How often the event follower reads the log even without a notification.
    public var pollInterval: Duration
    /// How long a document operation waits for another node's operation on the same document.
    public var lockTimeout: Duration
    /// The cluster's node registry (the catalog's database).
    public var registry: any NodeRegistry

    /// Makes the link.
    public init(
        client: PostgresClient, lockClient: PostgresClient, registry: any NodeRegistry,
        pollInterval: Duration = .seconds(1), lockTimeout: Duration = .seconds(10)
    ) {
        self.client = client
        self.registry = registry
        self.lockClient = lockClient
        self.pollInterval = pollInterval
        self.lockTimeout = lockTimeout
    }
}

/// How the events in the log reach this node's live subscribers (see ``EventFanOutKind``).
protocol EventFanOut: Sendable {
    /// This node appended `event` to the log.
    func committed(_ event: StoreEvent)
    /// Delivers events until the task is cancelled (the local fan-out has nothing to do).
    func run() async
}

/// The fan-out of one node on its SQLite ``Catalog``: the catalog publishes each event as its transaction commits
/// (``Catalog/observeCommittedEvents(_:)``), in id order; nothing is left to do when the library is told.
struct CommitOrderFanOut: EventFanOut {
    func committed(_ event: StoreEvent) {}

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
    private let metrics: StoreMetrics
    private let logger: Logger
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    /// The id of the last event handed on; nil until the follower starts (it starts after the log's last id).
    private let delivered = Mutex<Int64?>(nil)
    /// This node's id, which the events it records carry (``StoreEvent/node``): the follower tells them from the
    /// others' by the log alone, whenever it reads them (before ``committed(_:)`` or after).
    private let node: String
    /// Told of each event another node recorded, as it is handed on (the library forgets what it holds stale).
    let otherNodeRecorded = Mutex<Callback<StoreEvent>?>(nil)
    /// Told of each document a node changed in the catalog without an event (its state after an edit, say).
    let documentTouched = Mutex<Callback<DocumentID>?>(nil)
    /// Told each time the listening connection (re)starts: the notifications sent while it was down are lost, so
    /// whatever the node cached of documents other nodes may have changed meanwhile is stale.
    let listenerStarted = Mutex<Callback<Void>?>(nil)

    init(
        broadcaster: EventBroadcaster, log: any EventLog, client: PostgresClient, pollInterval: Duration,
        node: String, metrics: StoreMetrics, logger: Logger
    ) {
        self.node = node
        self.broadcaster = broadcaster
        self.log = log
        self.client = client
        self.pollInterval = pollInterval
        self.metrics = metrics
        self.logger = logger
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func committed(_ event: StoreEvent) {
        wake.yield()
    }

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
            let told = otherNodeRecorded.withLock { $0 }
            for event in events {
                guard let id = event.id else { continue }
                broadcaster.publish(event)
                delivered.withLock { $0 = id }
                if event.node != node {
                    // Another node's event: how long it took from the log (the database's clock) to this node.
                    metrics.recordNotificationLag(.seconds(Date().timeIntervalSince(event.at)))
                    told?.call(event)
                }
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
                    try await connection.listen(on: PostgresCatalog.notificationChannel) { notifications in
                        self.listenerStarted.withLock { $0 }?.call(())  // what no one listened to was lost
                        self.wake.yield()  // whatever was appended while no one listened
                        for try await notification in notifications {
                            let payload = notification.payload
                            if payload.hasPrefix(PostgresCatalog.documentNotificationPrefix),
                                let id = DocumentID(
                                    rawValue: String(payload.dropFirst(PostgresCatalog.documentNotificationPrefix.count)))
                            {
                                self.documentTouched.withLock { $0 }?.call(id)
                            } else {
                                self.wake.yield()
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.debug("listening to the event log's notifications failed", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }
}
