import Foundation
import Synchronization

/// A node of the store as the registry knows it: `GET /nodes` and `quire status` list them.
public struct NodeRecord: Sendable, Hashable, Codable {
    /// The node's id (random, new at each start).
    public var id: String
    /// Where it listens (`host:port`).
    public var address: String
    /// The Quire version it runs.
    public var version: String
    /// When it started.
    public var startedAt: Date
    /// When it last said it was alive (the database's clock in a cluster).
    public var lastHeartbeat: Date
    /// How many documents it holds open.
    public var openDocuments: Int
    /// How many documents it owns (a cluster's registry counts them; one node owns all it holds).
    public var ownedDocuments: Int

    /// Makes a record.
    public init(
        id: String, address: String, version: String, startedAt: Date, lastHeartbeat: Date, openDocuments: Int,
        ownedDocuments: Int = 0
    ) {
        self.id = id
        self.address = address
        self.version = version
        self.startedAt = startedAt.roundedToCatalogPrecision
        self.lastHeartbeat = lastHeartbeat.roundedToCatalogPrecision
        self.openDocuments = openDocuments
        self.ownedDocuments = ownedDocuments
    }
}

/// Which node owns a document: the one that keeps it open with its unsaved edits and its conflict, and to which
/// the other nodes forward the requests that need them.
public enum DocumentOwner: Sendable, Hashable {
    /// The node that asked owns the document: it had it already, or it claimed it now from no owner
    /// (`takenOverFrom` nil) or from a dead node (`takenOverFrom` that node's id).
    case this(takenOverFrom: String?)
    /// Another node, alive, owns it.
    case other(node: String, address: String)
}

/// A document a node took over from a dead one (``NodeRegistry/takeOver(for:liveness:limit:)``).
public struct DocumentTakeover: Sendable, Hashable {
    /// The document.
    public var document: DocumentID
    /// The dead node that owned it; nil for a document that had no owner (made before owners were kept, or whose
    /// claim at creation failed).
    public var from: String?

    /// Makes a takeover.
    public init(document: DocumentID, from: String?) {
        self.document = document
        self.from = from
    }
}

/// Which nodes serve the store and when each last said it was alive: the one node itself (``LocalNodeRegistry``),
/// or a cluster's table in PostgreSQL (``PostgresCatalog``). Both pass the same conformance tests.
public protocol NodeRegistry: Sendable {
    /// Records that `node` is alive now (its address and open documents as given; its heartbeat now, by the
    /// registry's clock), adding it if it is new.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``.
    func heartbeat(_ node: NodeRecord) async throws

    /// Every node known, oldest start first, with whether it is alive: a heartbeat within `liveness`.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``.
    func nodes(liveness: Duration) async throws -> [(node: NodeRecord, isLive: Bool)]

    /// Removes a node (it stops). The documents it owned have no owner until another node claims them.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``.
    func leave(_ id: String) async throws

    /// The owner of document `id`, claimed for `node` in one atomic step when it has none or its owner is dead
    /// (no heartbeat within `liveness`): of the nodes that ask at once, one gets it, the others learn it is
    /// theirs. A document that does not exist is answered `.this(takenOverFrom: nil)` and claims nothing (the
    /// caller's own lookup then says it is missing).
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``.
    func owner(of id: DocumentID, claimingFor node: String, liveness: Duration) async throws -> DocumentOwner

    /// Claims for `node` at most `limit` documents whose owners are dead (no heartbeat within `liveness`), none
    /// that another node is claiming at the same moment.
    /// - Returns: The documents taken over, with the node each was taken from.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``.
    func takeOver(for node: String, liveness: Duration, limit: Int) async throws -> [DocumentTakeover]
}

/// One node: the registry holds only itself, in memory.
public final class LocalNodeRegistry: NodeRegistry {
    private let node = Mutex<NodeRecord?>(nil)

    /// Makes an empty registry.
    public init() {}

    /// Keeps `node`, its heartbeat now.
    public func heartbeat(_ node: NodeRecord) async throws {
        var node = node
        node.lastHeartbeat = Date().roundedToCatalogPrecision
        self.node.withLock { $0 = node }
    }

    /// The node itself, alive.
    public func nodes(liveness: Duration) async throws -> [(node: NodeRecord, isLive: Bool)] {
        node.withLock { $0 }.map { [($0, true)] } ?? []
    }

    /// Forgets the node.
    public func leave(_ id: String) async throws {
        node.withLock { if $0?.id == id { $0 = nil } }
    }

    /// The one node owns every document.
    public func owner(of id: DocumentID, claimingFor node: String, liveness: Duration) async throws
        -> DocumentOwner
    {
        .this(takenOverFrom: nil)
    }

    /// Nothing to take over: there is no other node.
    public func takeOver(for node: String, liveness: Duration, limit: Int) async throws -> [DocumentTakeover] {
        []
    }
}
