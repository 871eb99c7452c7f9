import Foundation
import QuireTestSupport
import StoreClient
import Testing

/// A cluster is one store: the same seeded histories, run against one node and against three nodes on one
/// PostgreSQL with each request sent to a random node, give the same statuses, the same final documents and the
/// same events per document. `QUIRE_HISTORY_SEEDS` sets how many seeds run (20 by default; `make chaos` runs
/// more), `QUIRE_HISTORY_SEED` runs one seed alone (to replay a failure).
@Suite("One node and a cluster answer histories alike")
struct DifferentialHistoryTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let one = environment["QUIRE_HISTORY_SEED"].flatMap(UInt64.init) { return [one] }
        let count = environment["QUIRE_HISTORY_SEEDS"].flatMap(Int.init) ?? 20
        return (1...UInt64(max(1, count))).map { $0 }
    }

    @Test("seeded histories of uploads, registrations, fresh, stale and missing validators, saves, PUTs, programs' rewrites, resolutions and deletions: one node and three nodes agree")
    func historiesAgree() async throws {
        let single = try RunningService(sandbox: try CoordinationSandbox())
        let cluster = try await ClusterTests.Cluster()
        do {
            for seed in Self.seeds {
                let history = History(seed: seed)
                var alone = HistoryRunner(nodes: [single.url], root: single.root, seed: seed)
                let expected = try await alone.run(history)
                var spread = HistoryRunner(
                    nodes: cluster.nodes.map(\.url), root: cluster.nodes[0].root, seed: seed)
                let got = try await spread.run(history)
                let difference = got.firstDifference(from: expected, steps: history.steps)
                #expect(
                    difference == nil,
                    "seed \(seed) (replay: QUIRE_HISTORY_SEED=\(seed)): \(difference ?? "")\n\(history)\none node:\n\(expected)\ncluster:\n\(got)")
                #expect(!expected.statuses.contains(-1), "seed \(seed): a program's rewrite was never recorded on one node")
            }
        } catch {
            await cluster.shutdown()
            single.stop()
            throw error
        }
        await cluster.shutdown()
        single.stop()
    }
}
