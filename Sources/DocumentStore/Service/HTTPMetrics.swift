import CoreMetrics
import HTTPTypes
import StoreCore
import Synchronization

/// The service's HTTP metrics, made on the registry of the store's metrics (``StoreMetrics/metricsFactory``) and
/// served with them on `/metrics`: requests by route, method and status, and request bodies cut for coming too
/// slowly.
///
/// Several of these over one ``StoreMetrics`` share their series: the registry gives back the metric it already
/// holds under a name and dimensions.
final class HTTPMetrics: Sendable {
    private let factory: any MetricsFactory
    /// Request bodies cut with 408 because they came slower than the minimum rate or past the body deadline
    /// (`quire_request_bodies_too_slow_total`).
    let slowBodiesCut: CoreMetrics.Counter

    /// Makes the metrics on `metrics`' registry.
    init(_ metrics: StoreMetrics) {
        factory = metrics.metricsFactory
        slowBodiesCut = CoreMetrics.Counter(label: "quire_request_bodies_too_slow_total", factory: factory)
    }

    /// Counts a request and records its duration (`quire_http_requests_total`,
    /// `quire_http_request_duration_seconds`), by route pattern (`/documents/{id}`, never the raw path, so that
    /// ids do not multiply the series), method (`GET`) and status code.
    func recordRequest(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, duration: Duration) {
        let key = RequestSeriesKey(route: route, method: method.rawValue, status: status.code)
        let series = requestSeries.withLock { cache -> RequestSeries in
            if let series = cache[key] { return series }
            let dimensions = [("route", key.route), ("method", key.method), ("status", String(key.status))]
            let series = RequestSeries(
                count: CoreMetrics.Counter(
                    label: "quire_http_requests_total", dimensions: dimensions, factory: factory),
                duration: CoreMetrics.Timer(
                    label: "quire_http_request_duration_seconds", dimensions: dimensions, factory: factory))
            cache[key] = series
            return series
        }
        series.count.increment()
        series.duration.recordNanoseconds(Self.nanoseconds(duration))
    }

    /// The request metrics of one route, method and status, made once (a lookup in the registry costs more than
    /// the request's own bookkeeping).
    private struct RequestSeriesKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private struct RequestSeries: @unchecked Sendable {
        let count: CoreMetrics.Counter
        let duration: CoreMetrics.Timer
    }

    private let requestSeries = Mutex<[RequestSeriesKey: RequestSeries]>([:])

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
