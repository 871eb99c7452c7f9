import HTTPTypes
import Hummingbird
import Logging
import StoreCore

/// Observes every request: one log line (method, path, status, duration, the document id of document routes;
/// the logger already carries `hb.request.id`), the request metrics, and the request id echoed in `X-Request-ID` so that a client can quote
/// it. The duration runs until the response head is ready, not until a streamed body (an event stream) ends.
///
/// It sits outside ``ProblemResponseMiddleware``, so errors reach it as problem responses with their status.
struct RequestTelemetryMiddleware: RouterMiddleware {
    typealias Context = StoreRequestContext

    /// The level of the per-request log line.
    let level: Logger.Level
    let metrics: HTTPMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        var response = try await next(request, context)
        let duration = ContinuousClock.now - start
        let route = context.endpointPath ?? "NotFound"
        response.headers[.requestID] = context.id
        Self.observe(
            method: request.method, path: request.uri.path, route: route, status: response.status,
            duration: duration, document: context.parameters.get("id"), logger: context.logger, level: level,
            metrics: metrics)
        return response
    }

    /// Records one answered request: its metrics, and its log line when `logger` logs at `level` (the logger
    /// carries the request id). Shared with ``ContentFastPath``, whose answers never pass through here.
    static func observe(
        method: HTTPRequest.Method, path: String, route: String, status: HTTPResponse.Status, duration: Duration,
        document: String?, logger: Logger, level: Logger.Level, metrics: HTTPMetrics
    ) {
        metrics.recordRequest(route: route, method: method, status: status, duration: duration)
        guard logger.logLevel <= level else { return }
        var metadata: Logger.Metadata = [
            "http.route": .string(route),
            "http.status": .stringConvertible(status.code),
            "duration_ms": .string(milliseconds(duration)),
        ]
        if let document { metadata["document"] = .string(document) }
        logger.log(level: level, "\(method) \(path) \(status.code)", metadata: metadata)
    }

    /// A duration in milliseconds with three decimals (`12.345`).
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        let fraction = String(microseconds % 1000)
        return "\(microseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`: the id under which the service logged the request.
    public static var requestID: Self { Self("X-Request-ID")! }
}
