import DocumentStore
import Foundation
import Testing

/// The conformance suite of node membership and document owners: one node (``LocalNodeRegistry``: it is every
/// node there is and owns every document) and a cluster's registry in PostgreSQL (``PostgresCatalog``), where
/// owners are claimed, kept while alive and taken over when dead.
@Suite("Node registry and document owners")
struct NodeRegistryTests {
    static func node(_ id: String, port: Int = 8080) -> NodeRecord {
        NodeRecord(
            id: id, address: "127.0.0.1:\(port)", version: "test", startedAt: CatalogTests.created,
            lastHeartbeat: Date(), openDocuments: 0)
    }

    /// The registry of a place: the one node's for SQLite (its catalog has no registry of its own), the catalog
    /// itself for PostgreSQL.
    static func registry(_ place: CatalogPlace, _ catalog: any CatalogDatabase) -> any NodeRegistry {
        (catalog as? any NodeRegistry) ?? LocalNodeRegistry()
    }

    @Test("a node's heartbeat lists it alive; leaving removes it", arguments: CatalogEngine.allCases)
    func heartbeatsAndLeaving(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let registry = Self.registry(place, try await place.open())
            try await registry.heartbeat(Self.node("a"))
            let listed = try await registry.nodes(liveness: .seconds(5))
            #expect(listed.map(\.node.id) == ["a"] && listed.allSatisfy(\.isLive))
            #expect(listed.first?.node.address == "127.0.0.1:8080")
            try await registry.leave("a")
            #expect(try await registry.nodes(liveness: .seconds(5)).isEmpty)
        }
    }

    @Test("the node that asks first owns a document and keeps it; asking again changes nothing", arguments: CatalogEngine.allCases)
    func firstClaimKeeps(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            let registry = Self.registry(place, catalog)
            try await catalog.insert(CatalogTests.record("doc-1"))
            try await registry.heartbeat(Self.node("a"))
            let id = DocumentID(rawValue: "doc-1")!
            #expect(try await registry.owner(of: id, claimingFor: "a", liveness: .seconds(5)) == .this(takenOverFrom: nil))
            #expect(try await registry.owner(of: id, claimingFor: "a", liveness: .seconds(5)) == .this(takenOverFrom: nil))
            // Nothing to take over: the owner is alive (or is the only node).
            #expect(try await registry.takeOver(for: "a", liveness: .seconds(5), limit: 10).isEmpty)
        }
    }

    @Test("a live owner is named to the others; a dead one's document goes to the next node that asks")
    func liveOwnerAndTakeover() async throws {
        try await CatalogPlace.with(.postgres) { place in
            let catalog = try await place.open()
            let registry = Self.registry(place, catalog)
            try await catalog.insert(CatalogTests.record("doc-1"))
            try await registry.heartbeat(Self.node("a", port: 8081))
            try await registry.heartbeat(Self.node("b", port: 8082))
            let id = DocumentID(rawValue: "doc-1")!
            #expect(try await registry.owner(of: id, claimingFor: "a", liveness: .seconds(5)) == .this(takenOverFrom: nil))
            #expect(
                try await registry.owner(of: id, claimingFor: "b", liveness: .seconds(5))
                    == .other(node: "a", address: "127.0.0.1:8081"))
            #expect(try await registry.nodes(liveness: .seconds(5)).map(\.node.ownedDocuments) == [1, 0])
            try await registry.leave("a")  // gone from the registry: no longer alive
            #expect(try await registry.owner(of: id, claimingFor: "b", liveness: .seconds(5)) == .this(takenOverFrom: "a"))
            #expect(try await registry.owner(of: id, claimingFor: "b", liveness: .seconds(5)) == .this(takenOverFrom: nil))
            #expect(try await registry.nodes(liveness: .seconds(5)).map(\.node.ownedDocuments) == [1])
            // A document that does not exist is claimed by no one.
            let missing = DocumentID(rawValue: "missing")!
            #expect(try await registry.owner(of: missing, claimingFor: "b", liveness: .seconds(5)) == .this(takenOverFrom: nil))
            #expect(try await registry.owner(of: missing, claimingFor: "c", liveness: .seconds(5)) == .this(takenOverFrom: nil))
            // A document removed from the catalog is no longer owned.
            try await catalog.deleteDocument(id)
            #expect(try await registry.nodes(liveness: .seconds(5)).map(\.node.ownedDocuments) == [0])
        }
    }

    @Test("eight nodes claiming one document at once: exactly one owns it, the others are told which")
    func concurrentClaims() async throws {
        try await CatalogPlace.with(.postgres) { place in
            let catalog = try await place.open()
            let registry = Self.registry(place, catalog)
            try await catalog.insert(CatalogTests.record("doc-1"))
            for index in 0..<8 { try await registry.heartbeat(Self.node("n\(index)", port: 9000 + index)) }
            let id = DocumentID(rawValue: "doc-1")!
            let answers = try await withThrowingTaskGroup(of: (String, DocumentOwner).self) { group in
                for index in 0..<8 {
                    group.addTask {
                        ("n\(index)", try await registry.owner(of: id, claimingFor: "n\(index)", liveness: .seconds(5)))
                    }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            let winners = answers.filter { $0.value == .this(takenOverFrom: nil) }.map(\.key)
            #expect(winners.count == 1, "\(answers)")
            let winner = try #require(winners.first)
            for (node, answer) in answers where node != winner {
                #expect(answer == .other(node: winner, address: "127.0.0.1:\(9000 + Int(winner.dropFirst())!)"))
            }
        }
    }

    @Test("two nodes sweeping a dead node's documents at once take each exactly once; documents without an owner are swept too")
    func sweepsShareTheDead() async throws {
        try await CatalogPlace.with(.postgres) { place in
            let catalog = try await place.open()
            let registry = Self.registry(place, catalog)
            for node in ["dead", "b", "c"] { try await registry.heartbeat(Self.node(node)) }
            var owned: Set<DocumentID> = []
            for index in 0..<30 {
                let record = CatalogTests.record("doc-\(index)")
                try await catalog.insert(record)
                if index < 25 {
                    _ = try await registry.owner(of: record.id, claimingFor: "dead", liveness: .seconds(5))
                    owned.insert(record.id)
                }
            }
            try await registry.leave("dead")
            var taken: [DocumentTakeover] = []
            while true {
                async let b = registry.takeOver(for: "b", liveness: .seconds(5), limit: 4)
                async let c = registry.takeOver(for: "c", liveness: .seconds(5), limit: 4)
                let round = try await b + c
                if round.isEmpty { break }
                taken += round
            }
            #expect(taken.count == 30, "\(taken.count)")
            #expect(Set(taken.map(\.document)).count == 30)
            #expect(Set(taken.filter { $0.from == "dead" }.map(\.document)) == owned)
            #expect(taken.filter { $0.from == nil }.count == 5)
            #expect(try await registry.nodes(liveness: .seconds(5)).map(\.node.ownedDocuments).reduce(0, +) == 30)
        }
    }
    @Test("a document just made without an owner is left to its maker; one older than the liveness window is swept")
    func newDocumentsAreTheirMakers() async throws {
        try await CatalogPlace.with(.postgres) { place in
            let catalog = try await place.open()
            let registry = Self.registry(place, catalog)
            try await registry.heartbeat(Self.node("b"))
            var fresh = CatalogTests.record("fresh")
            fresh.createdAt = Date()
            var old = CatalogTests.record("old")
            old.createdAt = Date(timeIntervalSinceNow: -60)
            try await catalog.insert(fresh)
            try await catalog.insert(old)
            // Between the insert and its maker's claim, another node's sweep must not take it.
            let taken = try await registry.takeOver(for: "b", liveness: .seconds(5), limit: 10)
            #expect(taken.map(\.document.rawValue) == ["old"])
            #expect(try await registry.owner(of: fresh.id, claimingFor: "maker", liveness: .seconds(5)) == .this(takenOverFrom: nil))
        }
    }

    @Test("a document inserted as a node's is that node's from its first moment: another node asking at once is named the owner, never given it")
    func insertedWithItsOwner() async throws {
        try await CatalogPlace.with(.postgres) { place in
            let catalog = try await place.open()
            let registry = Self.registry(place, catalog)
            try await registry.heartbeat(Self.node("maker", port: 8081))
            try await registry.heartbeat(Self.node("watcher", port: 8082))
            let record = CatalogTests.record("made")
            try await catalog.insert(record, recording: nil, ownedBy: "maker")
            #expect(
                try await registry.owner(of: record.id, claimingFor: "watcher", liveness: .seconds(5))
                    == .other(node: "maker", address: "127.0.0.1:8081"))
            #expect(try await registry.owner(of: record.id, claimingFor: "maker", liveness: .seconds(5)) == .this(takenOverFrom: nil))
            #expect(try await registry.nodes(liveness: .seconds(5)).map(\.node.ownedDocuments) == [1, 0])
            // A failed insert (the id is taken) claims nothing.
            await #expect(throws: CatalogError.self) {
                try await catalog.insert(record, recording: nil, ownedBy: "watcher")
            }
            #expect(try await registry.nodes(liveness: .seconds(5)).map(\.node.ownedDocuments) == [1, 0])
        }
    }
}
