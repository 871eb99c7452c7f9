import CoreMetrics
import Prometheus

/// The store's domain metrics (documents, conflicts, PDF work, events, coordination, catch-up, search), recorded
/// through swift-metrics on a Prometheus registry of their own; the service serves them as text, with its HTTP
/// metrics made on the same registry (``metricsFactory``).
///
/// The metrics are made on this registry explicitly, not through the global `MetricsSystem`, so that a library
/// never bootstraps the process-wide system and every test gets fresh counters. An executable that also wants
/// other libraries' metrics on `/metrics` bootstraps the global system with ``metricsFactory``.
public final class StoreMetrics: Sendable {
    /// The registry the metrics live in.
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory

    /// Documents open right now (`quire_open_documents`); the document cache sets it.
    public let openDocuments: CoreMetrics.Gauge
    /// Documents in conflict right now (`quire_conflicts`); the store sets it.
    public let conflicts: CoreMetrics.Gauge
    /// PDF requests waiting for a worker process (`quire_pdf_queue_length`).
    public let pdfQueueLength: CoreMetrics.Gauge
    /// PDF requests whose worker was killed at their deadline (`quire_pdf_deadlines_missed_total`).
    public let pdfDeadlinesMissed: CoreMetrics.Counter
    /// Worker processes replaced after a deadline, a crash or a broken reply (`quire_pdf_worker_restarts_total`).
    public let pdfWorkerRestarts: CoreMetrics.Counter
    /// Documents this cluster node took over from a dead node (`quire_cluster_takeovers_total`).
    public let takeovers: CoreMetrics.Counter
    /// Event streams ended because their reader fell too far behind the live feed
    /// (`quire_event_streams_cut_off_total`); each got a final `resume` event and resumes from the log.
    public let eventStreamsCutOff: CoreMetrics.Counter
    /// Documents whose files the catch-up with the store's files looked at (`quire_catch_up_documents_total`).
    public let catchUpDocuments: CoreMetrics.Counter
    /// Documents the catch-up found changed and opened, which recorded the change (`quire_catch_up_changed_total`).
    public let catchUpChanged: CoreMetrics.Counter
    /// 1 while a catch-up with the store's files runs, 0 otherwise (`quire_catch_up_running`).
    public let catchUpRunning: CoreMetrics.Gauge
    /// Documents waiting to be indexed for search (`quire_search_index_waiting_documents`).
    public let searchIndexWaiting: CoreMetrics.Gauge
    /// How long the document that waits longest to be indexed has waited, in seconds
    /// (`quire_search_index_oldest_wait_seconds`).
    public let searchIndexOldestWait: CoreMetrics.Gauge
    /// Pages whose text the search index took in (`quire_search_pages_indexed_total`).
    public let searchPagesIndexed: CoreMetrics.Counter
    /// Documents the search index took in (`quire_search_documents_indexed_total`).
    public let searchDocumentsIndexed: CoreMetrics.Counter

    /// Makes the metrics on `registry` (a new one by default).
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[Self.coordinationWaitLabel] = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100),
            .milliseconds(500), .seconds(1), .seconds(5), .seconds(30),
        ]
        factory.durationHistogramBuckets[Self.notificationLagLabel] = [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
        ]
        self.factory = factory
        openDocuments = CoreMetrics.Gauge(label: "quire_open_documents", factory: factory)
        conflicts = CoreMetrics.Gauge(label: "quire_conflicts", factory: factory)
        pdfQueueLength = CoreMetrics.Gauge(label: "quire_pdf_queue_length", factory: factory)
        pdfDeadlinesMissed = CoreMetrics.Counter(label: "quire_pdf_deadlines_missed_total", factory: factory)
        pdfWorkerRestarts = CoreMetrics.Counter(label: "quire_pdf_worker_restarts_total", factory: factory)
        takeovers = CoreMetrics.Counter(label: "quire_cluster_takeovers_total", factory: factory)
        eventStreamsCutOff = CoreMetrics.Counter(label: "quire_event_streams_cut_off_total", factory: factory)
        catchUpDocuments = CoreMetrics.Counter(label: "quire_catch_up_documents_total", factory: factory)
        catchUpChanged = CoreMetrics.Counter(label: "quire_catch_up_changed_total", factory: factory)
        catchUpRunning = CoreMetrics.Gauge(label: "quire_catch_up_running", factory: factory)
        searchIndexWaiting = CoreMetrics.Gauge(label: "quire_search_index_waiting_documents", factory: factory)
        searchIndexOldestWait = CoreMetrics.Gauge(label: "quire_search_index_oldest_wait_seconds", factory: factory)
        searchPagesIndexed = CoreMetrics.Counter(label: "quire_search_pages_indexed_total", factory: factory)
        searchDocumentsIndexed = CoreMetrics.Counter(label: "quire_search_documents_indexed_total", factory: factory)
        openDocuments.record(0)
        conflicts.record(0)
        pdfQueueLength.record(0)
        catchUpRunning.record(0)
        searchIndexWaiting.record(0)
        searchIndexOldestWait.record(0)
    }

    /// The factory behind these metrics, for `MetricsSystem.bootstrap` in an executable.
    public var metricsFactory: any MetricsFactory { factory }

    /// Counts an event sent to the event log (`quire_events_total`), by type.
    public func recordEvent(_ type: StoreEvent.EventType) {
        CoreMetrics.Counter(label: "quire_events_total", dimensions: [("type", type.rawValue)], factory: factory)
            .increment()
    }

    /// Records how long a coordinated access waited for other processes (`quire_coordination_wait_seconds`).
    public func recordCoordinationWait(_ duration: Duration) {
        CoreMetrics.Timer(label: Self.coordinationWaitLabel, factory: factory).recordNanoseconds(
            Self.nanoseconds(duration))
    }

    /// Records how long another node's event took from its append to the shared log (by the database's clock) to
    /// its delivery to this node's live feeds (`quire_cluster_notification_lag_seconds`; cluster nodes only).
    public func recordNotificationLag(_ lag: Duration) {
        CoreMetrics.Timer(label: Self.notificationLagLabel, factory: factory).recordNanoseconds(
            Self.nanoseconds(max(.zero, lag)))
    }

    /// The metrics in the Prometheus text exposition format.
    public func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }

    private static let coordinationWaitLabel = "quire_coordination_wait_seconds"

    private static let notificationLagLabel = "quire_cluster_notification_lag_seconds"

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
