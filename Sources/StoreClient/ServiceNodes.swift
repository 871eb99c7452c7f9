import QuireAPI

/// `GET /nodes`: the id of the node that answered (`node`), whether the store is a cluster of nodes on one
/// PostgreSQL (`cluster`), and the nodes, oldest start first (`nodes`). openapi.yaml's `NodeList`, generated in
/// QuireAPI.
public typealias ServiceNodes = Components.Schemas.NodeList

extension Components.Schemas.NodeList {
    /// One node: its id (new at each start), address (`host:port`), Quire version, when it started and last said
    /// it was alive, whether that heartbeat is recent (within 5 s), and how many documents it holds open and owns
    /// (keeps open with their unsaved edits and conflicts, answering for them when other nodes forward requests; 0
    /// for a node alone).
    public typealias Node = NodesPayloadPayload
}
