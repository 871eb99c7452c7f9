import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireAPI
import StoreCore

/// `GET /nodes`: the nodes that serve the store (this one alone, or a cluster's), each with its address, version,
/// start, last heartbeat, whether it is alive (a heartbeat within 5 s), how many documents it holds open and how
/// many it owns (in a cluster; one node owns none, as there is no one to share them with).
/// 503 problem details when the registry (a cluster's database) cannot be read.
public struct NodesController: RouteController {
    private let library: DocumentLibrary
    private let isCluster: Bool

    /// Makes the controller; `isCluster` says whether the library is a cluster node.
    public init(library: DocumentLibrary, isCluster: Bool) {
        self.library = library
        self.isCluster = isCluster
    }

    /// `/nodes`.
    public var mountPath: RouterPath { "/nodes" }

    /// The one route.
    public var routes: RouteCollection<StoreRequestContext> {
        let routes = RouteCollection(context: StoreRequestContext.self)
        routes.get { [library, isCluster] _, context in
            let nodes: [(node: NodeRecord, isLive: Bool)]
            do {
                nodes = try await library.nodes()
            } catch {
                context.logger.error("cannot read the node registry", metadata: ["error": "\(error)"])
                throw ProblemDetails(
                    status: .serviceUnavailable, detail: "the node registry cannot be read: \(error)",
                    headers: [.retryAfter: "5"])
            }
            let answer = Components.Schemas.NodeList(
                node: library.membership.id, cluster: isCluster,
                nodes: nodes.map { entry in
                    .init(
                        id: entry.node.id, address: entry.node.address, version: entry.node.version,
                        startedAt: entry.node.startedAt, lastHeartbeat: entry.node.lastHeartbeat, live: entry.isLive,
                        openDocuments: entry.node.openDocuments, ownedDocuments: entry.node.ownedDocuments)
                })
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: try DocumentRepresentations.encode(answer))))
        }
        return routes
    }
}
