import HTTPTypes
import StoreCore

extension StoreMetrics {
    /// Counts a request and records its duration (`quire_http_requests_total`,
    /// `quire_http_request_duration_seconds`), by route pattern, method and status, as
    /// ``StoreMetrics/recordRequest(route:method:status:duration:)`` does with their text.
    public func recordRequest(
        route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, duration: Duration
    ) {
        recordRequest(route: route, method: method.rawValue, status: status.code, duration: duration)
    }
}
