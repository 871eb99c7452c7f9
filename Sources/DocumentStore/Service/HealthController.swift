import Foundation
import Hummingbird
import QuireAPI
import StoreCore

/// `GET /health`: `{"status":"ok","lastEventId":N}` while the service can read its catalog, 503 problem details
/// when it cannot. For load balancers, `make run` and operators (the last event id is where a new event-stream
/// client starts).
public struct HealthController: RouteController {
    private let catalog: any CatalogDatabase

    /// Makes the controller, which checks `catalog`.
    public init(catalog: any CatalogDatabase) {
        self.catalog = catalog
    }

    /// `/health`.
    public var mountPath: RouterPath { "/health" }

    /// The one route.
    public var routes: RouteCollection<StoreRequestContext> {
        let routes = RouteCollection(context: StoreRequestContext.self)
        routes.get { [catalog] _, context in
            let lastEventID: Int64
            do {
                lastEventID = try await catalog.lastEventID()
            } catch {
                context.logger.error("health check cannot read the catalog", metadata: ["error": "\(error)"])
                throw ProblemDetails(
                    status: .serviceUnavailable, detail: "the service cannot read its catalog: \(error)")
            }
            let health = Components.Schemas.Health(status: .ok, lastEventId: lastEventID)
            let body = ByteBuffer(bytes: try DocumentRepresentations.encode(health))
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: body))
        }
        return routes
    }
}
