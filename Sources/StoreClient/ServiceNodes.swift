/// `GET /nodes`: the nodes that serve the store.
public struct ServiceNodes: Sendable, Hashable, Codable {
    /// One node.
    public struct Node: Sendable, Hashable, Codable {
        /// The node's id (new at each start).
        public var id: String
        /// Where it listens (`host:port`).
        public var address: String
        /// The Quire version it runs.
        public var version: String
        /// When it started (RFC 3339).
        public var startedAt: String
        /// When it last said it was alive (RFC 3339).
        public var lastHeartbeat: String
        /// Whether its last heartbeat is recent (within 5 s).
        public var live: Bool
        /// How many documents it holds open.
        public var openDocuments: Int
        /// How many documents it owns (keeps open with their unsaved edits and conflicts, and answers for when
        /// other nodes forward requests); 0 for a node alone. Nil from a server older than owners.
        public var ownedDocuments: Int?
    }

    /// The id of the node that answered.
    public var node: String
    /// Whether the store is a cluster of nodes on one PostgreSQL.
    public var cluster: Bool
    /// The nodes, oldest start first.
    public var nodes: [Node]
}
