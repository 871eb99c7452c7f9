import Foundation
import Logging
import PostgresNIO
import QuireTestSupport
@testable import StoreCore
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

        init(catalog: PostgresCatalog, client: PostgresClient, database: String, store: URL, root: URL) async throws {
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
            try await fanOut.start()
            follower = Task { await fanOut.run() }
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

    @Test("an upload through one node is counted in the other node's notification lag, not in its own")
    func notificationLag() async throws {
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
        let second = try await Node(catalog: catalog, client: client, database: url, store: store, root: root)
        do {
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
        } catch {
            await first.stop()
            await second.stop()
            throw error
        }
        await first.stop()
        await second.stop()
    }
}
