import Foundation
import Logging
import PostgresNIO
import QuireTestSupport
@testable import StoreCore
import Synchronization
import Testing

/// A cluster node's view in its metrics: two nodes' libraries on the tests' private PostgreSQL, one store
/// directory; what one node records reaches the other through the shared log, and the other's
/// `quire_cluster_notification_lag_seconds` counts it.
@Suite("Cluster metrics")
struct ClusterMetricsTests {
    /// One node: a library over the shared catalog, its metrics, and its follower of the log running.
    struct Node {
        let library: DocumentLibrary
        let metrics: StoreMetrics
        let follower: Task<Void, Never>

        init(
            catalog: PostgresCatalog, client: PostgresClient, database: String, store: URL, root: URL,
            following: Bool = true
        ) async throws {
            var configuration = StoreConfiguration(storeDirectory: store, port: 0, roots: [root])
            configuration.database = DatabaseAddress(url: database)
            var logger = Logger(label: "quire.test")
            logger.logLevel = .critical
            metrics = StoreMetrics()
            library = try DocumentLibrary(
                catalog: catalog, configuration: configuration, metrics: metrics, logger: logger,
                cluster: ClusterLink(client: client, lockClient: client, registry: catalog))
            // Following from the log's last event now: what any node records from here on reaches this one.
            let fanOut = try #require(library.fanOut as? LogFollowingFanOut)
            if following {
                try await fanOut.start()
                follower = Task { await fanOut.run() }
            } else {
                follower = Task {}  // hears of no other node's change: the longest notification lag there is
            }
        }

        /// The count and sum of the lag histogram in the node's exposition (nil when it has no sample yet).
        func lag() -> (count: Int, seconds: Double)? {
            let text = String(decoding: metrics.exposition(), as: UTF8.self)
            func value(_ name: String) -> Double? {
                text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
                    .flatMap { Double($0.split(separator: " ").last ?? "") }
            }
            guard let count = value("quire_cluster_notification_lag_seconds_count"), count > 0 else { return nil }
            return (Int(count), value("quire_cluster_notification_lag_seconds_sum") ?? -1)
        }

        func stop() async {
            follower.cancel()
            await follower.value
            await library.shutdown()
        }
    }

    /// Two nodes' libraries on a fresh database of the tests' PostgreSQL and one store directory; the second
    /// follows the log unless `secondFollows` is false. `body` returns whether the nodes are to be stopped (a node
    /// stuck on a document's lane would never stop).
    static func withTwoNodes(
        secondFollows: Bool = true, _ body: (PostgresCatalog, Node, Node) async throws -> Bool
    ) async throws {
        let server = try PostgresServer.shared()
        let database = try await server.createDatabase()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let root = try directory.directory("root")
        let store = directory.url.appendingPathComponent("store", isDirectory: true)
        let client = PostgresClient(
            configuration: server.configuration(database: database), backgroundLogger: Logger(label: "test"))
        let running = Task { await client.run() }
        defer { running.cancel() }
        let url = server.url(database: database)
        let catalog = try await PostgresCatalog.open(client: client, location: url, logger: Logger(label: "test"))
        let first = try await Node(catalog: catalog, client: client, database: url, store: store, root: root)
        let second = try await Node(
            catalog: catalog, client: client, database: url, store: store, root: root, following: secondFollows)
        let stop: Bool
        do {
            stop = try await body(catalog, first, second)
        } catch {
            await first.stop()
            await second.stop()
            throw error
        }
        if stop {
            await first.stop()
            await second.stop()
        }
    }

    @Test("an upload through one node is counted in the other node's notification lag, not in its own")
    func notificationLag() async throws {
        try await Self.withTwoNodes { catalog, first, second in
            // Both nodes alive in the registry, as their services' heartbeats keep them: neither takes the other's
            // document over when its watcher sees the upload's file. Without heartbeats each counts the other as
            // dead; once, under load, the first node then heard of an event the second recorded.
            for node in [first, second] {
                try await catalog.heartbeat(node.library.membership.record(openDocuments: 0))
            }
            let file = first.library.incomingDirectory.appendingPathComponent("upload.pdf")
            try Fixture.data("one-page.pdf").write(to: file)
            _ = try await first.library.upload(fileAt: file, password: nil)
            let deadline = ContinuousClock.now + .seconds(10)
            while second.lag() == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            let lag = try #require(second.lag(), "the other node recorded no notification lag within 10 s")
            #expect(lag.count == 1)
            #expect(lag.seconds >= 0 && lag.seconds < 10, "lag of \(lag.seconds) s")
            // The node that committed the event hands it on too, but hears of it from no one.
            #expect(first.lag() == nil)
            return true
        }
    }

    /// With the writer alive, the other node is a plain non-owner that was told nothing. With the writer gone from
    /// the registry, the other node's own watcher sees the write and claims the document while handling it, in the
    /// document's lane: the taking in must not wait for that lane (it waited for itself, and the node never
    /// answered the document again).
    @Test(
        "a node that has not heard of another node's write answers the catalog's version, never its older copy",
        .timeLimit(.minutes(1)), arguments: [true, false])
    func readsAfterAnotherNodesWrite(writerAlive: Bool) async throws {
        try await Self.withTwoNodes(secondFollows: false) { catalog, first, deaf in
            if writerAlive { try await catalog.heartbeat(first.library.membership.record(openDocuments: 0)) }
            let file = first.library.incomingDirectory.appendingPathComponent("upload.pdf")
            try Fixture.data("one-page.pdf").write(to: file)
            let (created, tag) = try await first.library.upload(fileAt: file, password: nil)
            let id = created.id
            // The other node reads it (and keeps the document open, its info cached).
            #expect(try await deaf.library.infoNeedsOwner(id) == false)
            let (before, _) = try await deaf.library.info(id, password: nil)
            #expect(before.version == created.version)
            // The document's owner replaces its content; the other node is told nothing.
            let replacement = first.library.incomingDirectory.appendingPathComponent("replacement.pdf")
            try Fixture.data("mixed-sizes.pdf").write(to: replacement)
            let (replaced, newTag) = try await first.library.replaceContent(
                id, withFileAt: replacement, precondition: WritePrecondition(ifMatch: .tags([tag])), password: nil)
            #expect(replaced.version > created.version)
            // A client that wrote through the owner reads through the other node at once: the new version.
            #expect(try await deaf.library.infoNeedsOwner(id) == false)
            // Bounded: a lane that waits for itself never answers, and the test must say so rather than hang.
            final class Answer: Sendable {
                let value = Mutex<(DocumentInfo, EntityTag)?>(nil)
            }
            let answer = Answer()
            let library = deaf.library
            let reading = Task {
                let got = try await library.info(id, password: nil)
                answer.value.withLock { $0 = got }
            }
            let deadline = ContinuousClock.now + .seconds(20)
            while answer.value.withLock({ $0 == nil }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            guard let (after, afterTag) = answer.value.withLock({ $0 }) else {
                reading.cancel()
                Issue.record("the other node gave no answer within 20 s: the document's lane waits for itself")
                return false  // the stuck node is left behind: stopping it would wait for the same lane
            }
            #expect(after.version == replaced.version)
            #expect(afterTag == newTag)
            #expect(after.pageCount == replaced.pageCount)
            return true
        }
    }
}
