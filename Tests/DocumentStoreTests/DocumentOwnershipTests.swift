import Foundation
import Logging
import Synchronization
import Testing

@testable import StoreCore

/// Which node owns each document, alone: what it asks the registry, what it remembers, for how long.
@Suite("Document ownership")
struct DocumentOwnershipTests {
    /// A registry that answers from a table and counts the questions.
    final class ScriptedRegistry: NodeRegistry {
        struct Failed: Error {}
        let answers = Mutex<[DocumentID: DocumentOwner]>([:])
        let questions = Mutex<[(DocumentID, Duration)]>([])
        let failing = Mutex(false)

        func heartbeat(_ node: NodeRecord) async throws {}
        func nodes(liveness: Duration) async throws -> [(node: NodeRecord, isLive: Bool)] { [] }
        func leave(_ id: String) async throws {}
        func takeOver(for node: String, liveness: Duration, limit: Int) async throws -> [DocumentTakeover] { [] }
        func owner(of id: DocumentID, claimingFor node: String, liveness: Duration) async throws -> DocumentOwner {
            questions.withLock { $0.append((id, liveness)) }
            if failing.withLock({ $0 }) { throw Failed() }
            return answers.withLock { $0[id] } ?? .this(takenOverFrom: nil)
        }
        var asked: Int { questions.withLock { $0.count } }
    }

    static func ownership(_ registry: ScriptedRegistry, cluster: Bool = true) -> DocumentOwnership {
        DocumentOwnership(
            membership: NodeMembership(registry: registry, version: "test", logger: Logger(label: "test")),
            isCluster: cluster, cacheLifetime: .seconds(1))
    }

    @Test("a node alone owns every document and never asks")
    func alone() async throws {
        let registry = ScriptedRegistry()
        let ownership = Self.ownership(registry, cluster: false)
        #expect(try await ownership.owner(of: DocumentID.random()) == .this(takenOverFrom: nil))
        #expect(registry.asked == 0)
    }

    @Test("an answer is remembered for the lifetime; forgetting it, or its expiry, asks again")
    func remembered() async throws {
        let registry = ScriptedRegistry()
        let ownership = Self.ownership(registry)
        let id = DocumentID.random()
        let other = DocumentOwner.other(node: "n2", address: "127.0.0.1:9")
        registry.answers.withLock { $0[id] = other }
        let t0 = ContinuousClock.now
        #expect(try await ownership.owner(of: id, now: t0) == other)
        #expect(try await ownership.owner(of: id, now: t0 + .milliseconds(999)) == other)
        #expect(registry.asked == 1)
        ownership.forget(id)
        #expect(try await ownership.owner(of: id, now: t0 + .milliseconds(999)) == other)
        #expect(registry.asked == 2)
        #expect(try await ownership.owner(of: id, now: t0 + .seconds(3)) == other)
        #expect(registry.asked == 3)
    }

    @Test("a takeover is reported to the one who asked, then remembered as plain ownership")
    func takeoverReportedOnce() async throws {
        let registry = ScriptedRegistry()
        let ownership = Self.ownership(registry)
        let id = DocumentID.random()
        registry.answers.withLock { $0[id] = .this(takenOverFrom: "dead") }
        let t0 = ContinuousClock.now
        #expect(try await ownership.owner(of: id, now: t0) == .this(takenOverFrom: "dead"))
        #expect(try await ownership.owner(of: id, now: t0 + .milliseconds(10)) == .this(takenOverFrom: nil))
    }

    @Test("a node whose heartbeats have not reached the registry claims nothing from a dead node")
    func noTakeoverBeforeHealthy() async throws {
        let registry = ScriptedRegistry()
        let ownership = Self.ownership(registry)
        _ = try await ownership.owner(of: DocumentID.random())
        let liveness = try #require(registry.questions.withLock { $0.first?.1 })
        #expect(liveness > .seconds(86_400))
    }

    @Test("a registry that cannot be read is a 503-style refusal naming the document")
    func registryFails() async throws {
        let registry = ScriptedRegistry()
        registry.failing.withLock { $0 = true }
        let ownership = Self.ownership(registry)
        let id = DocumentID.random()
        do {
            _ = try await ownership.owner(of: id)
            Issue.record("no error")
        } catch let error as StoreError {
            guard case .unavailable(let message, let retry) = error.reason else {
                Issue.record("\(error)")
                return
            }
            #expect(message.contains(id.rawValue))
            #expect(retry == 1)
        }
    }

    @Test("asking about 100,000 documents keeps only the answers of about the last lifetime, not all of them")
    func boundedMemory() async throws {
        let registry = ScriptedRegistry()
        let ownership = Self.ownership(registry)
        let t0 = ContinuousClock.now
        // A thousand documents a second for 100 seconds: about a thousand answers are alive at any moment.
        for index in 0..<100_000 {
            _ = try await ownership.owner(of: DocumentID.random(), now: t0 + .milliseconds(index))
        }
        #expect(registry.asked == 100_000)
        #expect(ownership.rememberedCount <= 2 * 1_000 + DocumentOwnership.Cache.minimumPruneAt)
    }
}
