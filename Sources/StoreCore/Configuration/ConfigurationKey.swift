/// One key of the service's configuration and its spellings: the dot-separated path in `config/quire.json`, the
/// environment variable and the `quire serve` flag. The table below is the one place these spellings live.
struct ConfigurationKey: Sendable, Hashable {
    /// The dot-separated path in the JSON file and the swift-configuration key (`coordination.scope`).
    let name: String
    /// The environment variable that overrides the file: `QUIRE_` and the name in upper snake case, as
    /// swift-configuration's `EnvironmentVariablesProvider` spells the key prefixed with `quire`.
    let environmentVariable: String
    /// The `quire serve` flag that overrides everything else.
    let flag: String

    /// The key's path components, as swift-configuration looks them up.
    var components: [String] { name.split(separator: ".").map(String.init) }

    static let store = ConfigurationKey(name: "store", environmentVariable: "QUIRE_STORE", flag: "--store")
    static let host = ConfigurationKey(name: "host", environmentVariable: "QUIRE_HOST", flag: "--host")
    static let port = ConfigurationKey(name: "port", environmentVariable: "QUIRE_PORT", flag: "--port")
    static let coordinationScope = ConfigurationKey(
        name: "coordination.scope", environmentVariable: "QUIRE_COORDINATION_SCOPE", flag: "--coordination-scope")
    static let maxUploadBytes = ConfigurationKey(
        name: "maxUploadBytes", environmentVariable: "QUIRE_MAX_UPLOAD_BYTES", flag: "--max-upload-bytes")
    static let maxOpenDocuments = ConfigurationKey(
        name: "maxOpenDocuments", environmentVariable: "QUIRE_MAX_OPEN_DOCUMENTS", flag: "--max-open-documents")
    static let maxDPI = ConfigurationKey(name: "maxDPI", environmentVariable: "QUIRE_MAX_DPI", flag: "--max-dpi")
    static let uploadBudgetBytes = ConfigurationKey(
        name: "uploadBudgetBytes", environmentVariable: "QUIRE_UPLOAD_BUDGET_BYTES", flag: "--upload-budget-bytes")
    static let headerTimeoutSeconds = ConfigurationKey(
        name: "headerTimeoutSeconds", environmentVariable: "QUIRE_HEADER_TIMEOUT_SECONDS",
        flag: "--header-timeout-seconds")
    static let idleTimeoutSeconds = ConfigurationKey(
        name: "idleTimeoutSeconds", environmentVariable: "QUIRE_IDLE_TIMEOUT_SECONDS", flag: "--idle-timeout-seconds")
    /// The minimum average rate of a request body, after its grace period (0: none).
    static let minBodyBytesPerSecond = ConfigurationKey(
        name: "minBodyBytesPerSecond", environmentVariable: "QUIRE_MIN_BODY_BYTES_PER_SECOND",
        flag: "--min-body-bytes-per-second")
    /// The most time one request body may take.
    static let bodyTimeoutSeconds = ConfigurationKey(
        name: "bodyTimeoutSeconds", environmentVariable: "QUIRE_BODY_TIMEOUT_SECONDS", flag: "--body-timeout-seconds")
    static let maxConnections = ConfigurationKey(
        name: "maxConnections", environmentVariable: "QUIRE_MAX_CONNECTIONS", flag: "--max-connections")
    static let pdfWorkers = ConfigurationKey(
        name: "pdfWorkers", environmentVariable: "QUIRE_PDF_WORKERS", flag: "--pdf-workers")
    static let pdfDeadlineSeconds = ConfigurationKey(
        name: "pdfDeadlineSeconds", environmentVariable: "QUIRE_PDF_DEADLINE_SECONDS", flag: "--pdf-deadline-seconds")
    static let pdfMemoryMiB = ConfigurationKey(
        name: "pdfMemoryMiB", environmentVariable: "QUIRE_PDF_MEMORY_MIB", flag: "--pdf-memory-mib")
    static let token = ConfigurationKey(name: "token", environmentVariable: "QUIRE_TOKEN", flag: "--token")
    /// How often a node compares the files of the documents it owns with the catalog (0: never).
    static let contentCheckSeconds = ConfigurationKey(
        name: "contentCheckSeconds", environmentVariable: "QUIRE_CONTENT_CHECK_SECONDS",
        flag: "--content-check-seconds")
    /// Cluster mode: the shared PostgreSQL (`postgres://user[:password]@host[:port]/database`).
    static let database = ConfigurationKey(
        name: "database", environmentVariable: "QUIRE_DATABASE", flag: "--database")
    /// The lowest level of log line written (`trace` … `critical`).
    static let logLevel = ConfigurationKey(name: "log.level", environmentVariable: "QUIRE_LOG_LEVEL", flag: "--log-level")
    /// How log lines are written: `text` (with a priority prefix and no timestamp for the journal) or `json`.
    static let logFormat = ConfigurationKey(
        name: "log.format", environmentVariable: "QUIRE_LOG_FORMAT", flag: "--log-format")
    /// A polling window, in microseconds (``StoreConfiguration/polling``).
    static let coordinationPollMicroseconds = ConfigurationKey(
        name: "coordination.pollMicroseconds", environmentVariable: "QUIRE_COORDINATION_POLL_MICROSECONDS", flag: "--coordination-poll-microseconds")
    /// A polling window, in microseconds (``StoreConfiguration/polling``).
    static let coordinationHandOverPollMicroseconds = ConfigurationKey(
        name: "coordination.handOverPollMicroseconds", environmentVariable: "QUIRE_COORDINATION_HAND_OVER_POLL_MICROSECONDS", flag: "--coordination-hand-over-poll-microseconds")
    /// A polling window, in microseconds (``StoreConfiguration/polling``).
    static let coordinationHostPollMicroseconds = ConfigurationKey(
        name: "coordination.hostPollMicroseconds", environmentVariable: "QUIRE_COORDINATION_HOST_POLL_MICROSECONDS", flag: "--coordination-host-poll-microseconds")
    /// A polling window, in microseconds (``StoreConfiguration/polling``).
    static let workersPollMicroseconds = ConfigurationKey(
        name: "workers.pollMicroseconds", environmentVariable: "QUIRE_WORKERS_POLL_MICROSECONDS", flag: "--workers-poll-microseconds")
    /// A polling window, in microseconds (``StoreConfiguration/polling``).
    static let workersIdlePollMicroseconds = ConfigurationKey(
        name: "workers.idlePollMicroseconds", environmentVariable: "QUIRE_WORKERS_IDLE_POLL_MICROSECONDS", flag: "--workers-idle-poll-microseconds")
    /// Colon-separated in the environment (as `PATH`); `--root` is repeated on the command line.
    static let roots = ConfigurationKey(name: "roots", environmentVariable: "QUIRE_ROOTS", flag: "--root")

    /// Every key, in the order config/README.md documents them.
    static let all: [ConfigurationKey] = [
        .store, .host, .port, .coordinationScope, .maxUploadBytes, .maxOpenDocuments, .maxDPI, .uploadBudgetBytes,
        .headerTimeoutSeconds, .idleTimeoutSeconds, .minBodyBytesPerSecond, .bodyTimeoutSeconds, .maxConnections, .pdfWorkers, .pdfDeadlineSeconds, .pdfMemoryMiB, .token, .database,
        .contentCheckSeconds, .roots, .logLevel, .logFormat, .coordinationPollMicroseconds,
        .coordinationHandOverPollMicroseconds, .coordinationHostPollMicroseconds, .workersPollMicroseconds,
        .workersIdlePollMicroseconds,
    ]
}
