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

    /// Makes a record.
    public init(
        id: String, address: String, version: String, startedAt: Date, lastHeartbeat: Date, openDocuments: Int
    ) {
        self.id = id
        self.address = address
        self.version = version
        self.startedAt = startedAt.roundedToCatalogPrecision
        self.lastHeartbeat = lastHeartbeat.roundedToCatalogPrecision
        self.openDocuments = openDocuments
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

    /// Removes a node (it stops).
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``.
    func leave(_ id: String) async throws
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
}
