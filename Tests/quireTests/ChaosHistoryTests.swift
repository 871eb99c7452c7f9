import Foundation
import QuireTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The chaos run (`make chaos`): seeded histories against three nodes on a private PostgreSQL while nodes are
/// killed (SIGKILL, then started again), stopped (SIGSTOP, then continued) and PostgreSQL restarts, at points the
/// seed picks. What the client was told is recorded as it is told; at the end, with every fault healed, the
/// ``HistoryChecker`` proves that every acknowledged change is in the final history exactly once, that versions
/// only grow, that no acknowledged write is lost and no stale write succeeded, and every node must show every
/// document alike. A failure prints its seed (`QUIRE_HISTORY_SEED` replays it).
///
/// Runs only when `QUIRE_CHAOS` is set; `QUIRE_CHAOS_HISTORIES` sets how many histories (50 in `make chaos`).
@Suite("Chaos: histories under node deaths, stops and database restarts")
struct ChaosHistoryTests {
    static let enabled = ProcessInfo.processInfo.environment["QUIRE_CHAOS"] != nil

    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let one = environment["QUIRE_HISTORY_SEED"].flatMap(UInt64.init) { return [one] }
        let count = environment["QUIRE_CHAOS_HISTORIES"].flatMap(Int.init) ?? 50
        return (1...UInt64(max(1, count))).map { 1000 + $0 }
    }

    /// What a node is going through.
    enum NodeCondition: Sendable, Equatable {
        case up
        /// Killed; started again after `steps` more steps.
        case killed(steps: Int)
        /// Stopped; continued after `steps` more steps.
        case stopped(steps: Int)
    }

    /// Every node's condition, shared with the runner's choice of nodes.
    final class Conditions: Sendable {
        let all: Mutex<[NodeCondition]>
        init(count: Int) { all = Mutex(Array(repeating: .up, count: count)) }
        func withLock<T>(_ body: (inout [NodeCondition]) -> T) -> T { all.withLock { body(&$0) } }
    }

    @Test("histories under faults keep every promise", .enabled(if: ChaosHistoryTests.enabled))
    func historiesUnderFaults() async throws {
        let database = try PostgresServer.makePrivate()
        let cluster = try await ClusterTests.Cluster(server: database)
        let conditions = Conditions(count: cluster.nodes.count)
        var totals = (histories: 0, faults: 0, acknowledged: 0, violations: 0, divergences: 0)
        do {
            for seed in Self.seeds {
                var random = SeededGenerator(seed: seed ^ 0xC4A05)
                let history = History(seed: seed, length: 30)
                var runner = HistoryRunner(
                    nodes: cluster.nodes.map(\.url), root: cluster.nodes[0].root, seed: seed, underFaults: true)
                runner.reachable = { conditions.withLock { all in all.indices.filter { all[$0] == .up } } }
                var statuses: [Int] = []
                for index in history.steps.indices {
                    totals.faults += try Self.injectFault(&random, cluster: cluster, database: database, conditions: conditions)
                    statuses.append(try await runner.perform(history, step: index))
                    try Self.heal(cluster: cluster, conditions: conditions, all: false)
                }
                try Self.heal(cluster: cluster, conditions: conditions, all: true)
                // Every node heartbeats again, every takeover is done and every change a dead owner missed is
                // recorded (bounded): then every node must show every document alike.
                var final = try await runner.outcome(statuses: statuses)
                var others: [(String, HistoryOutcome)] = []
                let deadline = ContinuousClock.now + .seconds(20)
                while true {
                    others = []
                    for node in cluster.nodes.dropFirst() {
                        var other = runner.reading(from: node.url)
                        others.append((node.url, try await other.outcome(statuses: statuses)))
                    }
                    let alike = others.allSatisfy { $0.1.documents == final.documents && $0.1.events == final.events }
                    if alike || ContinuousClock.now >= deadline { break }
                    try await Task.sleep(for: .milliseconds(500))
                    final = try await runner.outcome(statuses: statuses)
                }
                for (url, theirs) in others where theirs.documents != final.documents || theirs.events != final.events {
                    totals.divergences += 1
                    Issue.record("seed \(seed): \(url) shows \(theirs) but node 1 shows \(final)")
                }
                let events = try await HistoryRunner.allEvents(from: cluster.nodes[0].url)
                var finalVersions: [String: Int64] = [:]
                for (index, id) in runner.documentIDs.enumerated() {
                    if let document = final.documents[index] { finalVersions[id] = document.version }
                }
                let checker = HistoryChecker(
                    writes: runner.journal,
                    events: events.map {
                        HistoryChecker.Event(
                            id: $0.id, document: $0.document, type: $0.type.rawValue, version: $0.version,
                            contentEtag: $0.contentEtag)
                    },
                    finalVersions: finalVersions)
                let violations = checker.violations()
                #expect(
                    violations.isEmpty,
                    "seed \(seed) (replay: QUIRE_CHAOS=1 QUIRE_HISTORY_SEED=\(seed)): \(violations.joined(separator: "\n"))\n\(history)\n\(final)")
                totals.histories += 1
                totals.acknowledged += runner.journal.count
                totals.violations += violations.count
            }
        } catch {
            try? Self.heal(cluster: cluster, conditions: conditions, all: true)
            await cluster.shutdown()
            throw error
        }
        print(
            "chaos: \(totals.histories) histories, \(totals.faults) faults, \(totals.acknowledged) acknowledged writes, "
                + "\(totals.violations) violations (lost or stale writes, duplicate events, versions going back), "
                + "\(totals.divergences) divergences between nodes")
        await cluster.shutdown()
    }

    /// With a chance of one in eight, one fault: a node killed, a node stopped (never the last node up), or
    /// PostgreSQL restarted. How many it made.
    static func injectFault(
        _ random: inout SeededGenerator, cluster: ClusterTests.Cluster, database: PostgresServer,
        conditions: Conditions
    ) throws -> Int {
        guard random.below(8) == 0 else { return 0 }
        let up = conditions.withLock { all in all.indices.filter { all[$0] == .up } }
        let kind = random.below(3)
        if kind == 2 || up.count < 2 {
            try database.restart()
            return 1
        }
        let node = up[random.below(up.count)]
        let steps = 1 + random.below(3)
        let pid = cluster.nodes[node].process.pid
        if kind == 0 {
            kill(pid, SIGKILL)
            _ = cluster.nodes[node].process.waitForExit(timeout: 20)
            conditions.withLock { $0[node] = NodeCondition.killed(steps: steps) }
        } else {
            kill(pid, SIGSTOP)
            conditions.withLock { $0[node] = NodeCondition.stopped(steps: steps) }
        }
        return 1
    }

    /// Counts a step down for every faulty node; brings back those whose time came (all of them with `all`).
    static func heal(cluster: ClusterTests.Cluster, conditions: Conditions, all: Bool) throws {
        for node in cluster.nodes.indices {
            let condition = conditions.withLock { $0[node] }
            switch condition {
            case .up: continue
            case .killed(let steps):
                if all || steps <= 1 {
                    try cluster.nodes[node].restart()
                    conditions.withLock { $0[node] = NodeCondition.up }
                } else {
                    conditions.withLock { $0[node] = NodeCondition.killed(steps: steps - 1) }
                }
            case .stopped(let steps):
                if all || steps <= 1 {
                    kill(cluster.nodes[node].process.pid, SIGCONT)
                    conditions.withLock { $0[node] = NodeCondition.up }
                } else {
                    conditions.withLock { $0[node] = NodeCondition.stopped(steps: steps - 1) }
                }
            }
        }
    }
}
