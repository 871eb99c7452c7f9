import Foundation
import Logging
import PostgresNIO
import QuireTestSupport
import Synchronization
import Testing

@testable import StoreCore

/// The cluster's fan-out alone (``LogFollowingFanOut``): the shared log on the tests' private PostgreSQL, written
/// by this node and by "other nodes" (plain appends), followed into a broadcaster.
@Suite("Event fan-out")
struct EventFanOutTests {
    @Test("every event of the shared log reaches a subscriber once, in id order; every other node's is told once, none of this node's")
    func followsTheLog() async throws {
        let fixture = try await FanOutFixture(pollInterval: .milliseconds(200), bufferBound: 10_000)
        defer { fixture.stop() }
        let (catalog, fanOut, subscription, told) = (
            fixture.catalog, fixture.fanOut, fixture.subscription, fixture.told
        )

        // Four other nodes append 75 events each, concurrently; this node commits 50 of its own meanwhile.
        let documents = (0..<4).map { _ in DocumentID.random() }
        let mine = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for (index, document) in documents.enumerated() {
                group.addTask {
                    for _ in 0..<75 {
                        _ = try await catalog.append(
                            StoreEvent(type: .changed, documentID: document, etag: nil, node: "other-\(index)"))
                    }
                    return []
                }
            }
            group.addTask {
                var ids: [Int64] = []
                let own = DocumentID.random()
                for _ in 0..<50 {
                    let event = try await catalog.append(
                        StoreEvent(type: .changed, documentID: own, etag: nil, node: "this-node"))
                    fanOut.committed(event)
                    ids.append(event.id ?? -1)
                }
                return ids
            }
            var all: [Int64] = []
            for try await ids in group { all += ids }
            return all
        }
        // Bounded: 350 events, each handed on once, in id order.
        var received: [Int64] = []
        let deadline = ContinuousClock.now + .seconds(20)
        var iterator = subscription.items.makeAsyncIterator()
        while received.count < 350, ContinuousClock.now < deadline {
            guard let item = await iterator.next() else { break }
            if case .event(let event) = item { received.append(event.id ?? -1) }
        }
        #expect(received.count == 350)
        #expect(received == received.sorted())
        #expect(Set(received).count == received.count)
        // The follower tells the library of every one of the other nodes' 300 events, once, and of none of this
        // node's own, however early it reads them.
        let others = told.ids.withLock { $0 }
        let othersIDs = Set(received).subtracting(mine)
        #expect(othersIDs.count == 300)
        #expect(Set(others) == othersIDs)
        #expect(others.count == 300)
    }

    @Test("an event this node recorded is not told as another node's when the follower reads it before committed(_:)")
    func ownEventReadEarly() async throws {
        let fixture = try await FanOutFixture(pollInterval: .milliseconds(50), bufferBound: 100)
        defer { fixture.stop() }
        let (catalog, fanOut, subscription, told) = (
            fixture.catalog, fixture.fanOut, fixture.subscription, fixture.told
        )
        // This node's event, then another node's; the follower hands both on (its poll finds them) before this
        // node gets to say that the first is its own.
        let own = try await catalog.append(
            StoreEvent(type: .changed, documentID: DocumentID.random(), etag: nil, node: "this-node"))
        let other = try await catalog.append(
            StoreEvent(type: .changed, documentID: DocumentID.random(), etag: nil, node: "other"))
        var received: [Int64] = []
        var iterator = subscription.items.makeAsyncIterator()
        let deadline = ContinuousClock.now + .seconds(20)
        while received.count < 2, ContinuousClock.now < deadline {
            guard let item = await iterator.next() else { break }
            if case .event(let event) = item { received.append(event.id ?? -1) }
        }
        #expect(received == [own.id ?? -1, other.id ?? -1])
        fanOut.committed(own)
        // The follower tells the library right after it hands an event on: wait (bounded) for the other's.
        let toldDeadline = ContinuousClock.now + .seconds(10)
        while !told.ids.withLock({ $0.contains(other.id ?? -1) }), ContinuousClock.now < toldDeadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(told.ids.withLock { $0 } == [other.id ?? -1])
    }
}

/// A ``LogFollowingFanOut`` of the node "this-node" on a new database of the tests' private PostgreSQL, running,
/// with a subscriber and the record of the events it told the library were another node's.
private final class FanOutFixture: Sendable {
    /// The ids of the events told as another node's, in order.
    final class Told: Sendable { let ids = Mutex<[Int64]>([]) }

    let catalog: PostgresCatalog
    let fanOut: LogFollowingFanOut
    let subscription: EventBroadcaster.Subscription
    let told: Told
    private let tasks: [Task<Void, Never>]

    init(pollInterval: Duration, bufferBound: Int) async throws {
        let server = try PostgresServer.shared()
        let database = try await server.createDatabase()
        let client = PostgresClient(
            configuration: server.configuration(database: database), backgroundLogger: Logger(label: "test"))
        let running = Task { await client.run() }
        catalog = try await PostgresCatalog.open(
            client: client, location: server.url(database: database), logger: Logger(label: "test"))
        var logger = Logger(label: "quire.test")
        logger.logLevel = .critical
        let metrics = StoreMetrics()
        let broadcaster = EventBroadcaster(
            keepAliveInterval: .seconds(60), bufferBound: bufferBound, cutOffs: metrics.eventStreamsCutOff,
            logger: logger)
        let fanOut = LogFollowingFanOut(
            broadcaster: broadcaster, log: catalog, client: client, pollInterval: pollInterval, node: "this-node",
            metrics: metrics, logger: logger)
        let told = Told()
        self.told = told
        fanOut.otherNodeRecorded.withLock { $0 = Callback { event in told.ids.withLock { $0.append(event.id ?? -1) } } }
        try await fanOut.start()
        self.fanOut = fanOut
        subscription = broadcaster.subscribe()
        tasks = [running, Task { await fanOut.run() }]
    }

    /// Stops the follower and the database client.
    func stop() {
        for task in tasks.reversed() { task.cancel() }
    }
}
