import Hummingbird
import StoreCore

/// `GET /metrics`: the service's metrics in the Prometheus text exposition format (version 0.0.4).
public struct MetricsController: RouteController {
    private let metrics: StoreMetrics

    /// The media type Prometheus scrapes.
    public static let mediaType = "text/plain; version=0.0.4; charset=utf-8"

    /// Makes the controller for `metrics`.
    public init(metrics: StoreMetrics) {
        self.metrics = metrics
    }

    /// `/metrics`.
    public var mountPath: RouterPath { "/metrics" }

    /// The one route.
    public var routes: RouteCollection<StoreRequestContext> {
        let routes = RouteCollection(context: StoreRequestContext.self)
        routes.get { [metrics] _, _ in
            let body = ByteBuffer(bytes: metrics.exposition())
            return Response(
                status: .ok, headers: [.contentType: Self.mediaType, .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: body))
        }
        return routes
    }
}
