import Hummingbird
import StoreCore

/// The routes of one resource of the service, mounted at one path: `buildRouter` adds each controller's
/// ``routes`` under its ``mountPath``, after the service's middleware (request log and metrics, problem details,
/// bearer token), so that every route gets them.
///
/// The built-in controllers are ``HealthController``, ``MetricsController``, ``OpenAPIController`` and
/// ``WebController``; the
/// document routes (`/documents…`, `/events`) arrive as controllers of the same kind, passed to
/// ``buildRouter(configuration:catalog:metrics:controllers:requestLogLevel:)``.
public protocol RouteController: Sendable {
    /// The path the routes are mounted at (`/health`, `/documents`).
    var mountPath: RouterPath { get }
    /// The routes, with paths relative to ``mountPath``.
    var routes: RouteCollection<StoreRequestContext> { get }
}
