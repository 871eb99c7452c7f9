import Configuration

/// The values a caller (the `quire serve` command line) sets above every other source. Nil, or an empty
/// `roots`, leaves the value to the environment, the file or the default.
public struct ConfigurationOverrides: Sendable, Equatable {
    /// `--store DIR`.
    public var store: String?
    /// `--host H`.
    public var host: String?
    /// `--port P`.
    public var port: Int?
    /// `--coordination-scope user|process`.
    public var coordinationScope: String?
    /// `--max-upload-bytes N`.
    public var maxUploadBytes: Int?
    /// `--max-open-documents N`.
    public var maxOpenDocuments: Int?
    /// `--max-dpi N`.
    public var maxDPI: Int?
    /// `--upload-budget-bytes N`.
    public var uploadBudgetBytes: Int?
    /// `--header-timeout-seconds N`.
    public var headerTimeoutSeconds: Int?
    /// `--idle-timeout-seconds N`.
    public var idleTimeoutSeconds: Int?
    /// `--min-body-bytes-per-second N`.
    public var minBodyBytesPerSecond: Int?
    /// `--body-timeout-seconds N`.
    public var bodyTimeoutSeconds: Int?
    /// `--max-connections N`.
    public var maxConnections: Int?
    /// `--pdf-workers N`.
    public var pdfWorkers: Int?
    /// `--pdf-deadline-seconds N`.
    public var pdfDeadlineSeconds: Int?
    /// `--pdf-memory-mib N`.
    public var pdfMemoryMiB: Int?
    /// `--token T`.
    public var token: String?
    /// `--database URL`.
    public var database: String?
    /// `--content-check-seconds N`.
    public var contentCheckSeconds: Int?
    /// `--root DIR`, repeated; empty when not given.
    public var roots: [String]
    /// `--log-level L`.
    public var logLevel: String?
    /// `--log-format text|json`.
    public var logFormat: String?
    /// `--coordination-poll-microseconds N`.
    public var coordinationPollMicroseconds: Int?
    /// `--coordination-hand-over-poll-microseconds N`.
    public var coordinationHandOverPollMicroseconds: Int?
    /// `--coordination-host-poll-microseconds N`.
    public var coordinationHostPollMicroseconds: Int?
    /// `--workers-poll-microseconds N`.
    public var workersPollMicroseconds: Int?
    /// `--workers-idle-poll-microseconds N`.
    public var workersIdlePollMicroseconds: Int?

    /// Makes overrides; every value defaults to "not given".
    public init(
        store: String? = nil,
        host: String? = nil,
        port: Int? = nil,
        coordinationScope: String? = nil,
        maxUploadBytes: Int? = nil,
        maxOpenDocuments: Int? = nil,
        maxDPI: Int? = nil,
        uploadBudgetBytes: Int? = nil,
        headerTimeoutSeconds: Int? = nil,
        idleTimeoutSeconds: Int? = nil,
        minBodyBytesPerSecond: Int? = nil,
        bodyTimeoutSeconds: Int? = nil,
        maxConnections: Int? = nil,
        pdfWorkers: Int? = nil,
        pdfDeadlineSeconds: Int? = nil,
        pdfMemoryMiB: Int? = nil,
        token: String? = nil,
        database: String? = nil,
        contentCheckSeconds: Int? = nil,
        roots: [String] = [],
        logLevel: String? = nil,
        logFormat: String? = nil,
        coordinationPollMicroseconds: Int? = nil,
        coordinationHandOverPollMicroseconds: Int? = nil,
        coordinationHostPollMicroseconds: Int? = nil,
        workersPollMicroseconds: Int? = nil,
        workersIdlePollMicroseconds: Int? = nil
    ) {
        self.store = store
        self.host = host
        self.port = port
        self.coordinationScope = coordinationScope
        self.maxUploadBytes = maxUploadBytes
        self.maxOpenDocuments = maxOpenDocuments
        self.maxDPI = maxDPI
        self.uploadBudgetBytes = uploadBudgetBytes
        self.headerTimeoutSeconds = headerTimeoutSeconds
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.minBodyBytesPerSecond = minBodyBytesPerSecond
        self.bodyTimeoutSeconds = bodyTimeoutSeconds
        self.maxConnections = maxConnections
        self.pdfWorkers = pdfWorkers
        self.pdfDeadlineSeconds = pdfDeadlineSeconds
        self.pdfMemoryMiB = pdfMemoryMiB
        self.token = token
        self.database = database
        self.contentCheckSeconds = contentCheckSeconds
        self.roots = roots
        self.logLevel = logLevel
        self.logFormat = logFormat
        self.coordinationPollMicroseconds = coordinationPollMicroseconds
        self.coordinationHandOverPollMicroseconds = coordinationHandOverPollMicroseconds
        self.coordinationHostPollMicroseconds = coordinationHostPollMicroseconds
        self.workersPollMicroseconds = workersPollMicroseconds
        self.workersIdlePollMicroseconds = workersIdlePollMicroseconds
    }

    /// The overrides as a swift-configuration snapshot, the highest-precedence layer.
    var snapshot: any ConfigSnapshot {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        func set(_ key: ConfigurationKey, _ content: ConfigContent?, isSecret: Bool = false) {
            guard let content else { return }
            values[AbsoluteConfigKey(key.components)] = ConfigValue(content, isSecret: isSecret)
        }
        set(.store, store.map(ConfigContent.string))
        set(.host, host.map(ConfigContent.string))
        set(.port, port.map(ConfigContent.int))
        set(.coordinationScope, coordinationScope.map(ConfigContent.string))
        set(.maxUploadBytes, maxUploadBytes.map(ConfigContent.int))
        set(.maxOpenDocuments, maxOpenDocuments.map(ConfigContent.int))
        set(.maxDPI, maxDPI.map(ConfigContent.int))
        set(.uploadBudgetBytes, uploadBudgetBytes.map(ConfigContent.int))
        set(.headerTimeoutSeconds, headerTimeoutSeconds.map(ConfigContent.int))
        set(.idleTimeoutSeconds, idleTimeoutSeconds.map(ConfigContent.int))
        set(.minBodyBytesPerSecond, minBodyBytesPerSecond.map(ConfigContent.int))
        set(.bodyTimeoutSeconds, bodyTimeoutSeconds.map(ConfigContent.int))
        set(.maxConnections, maxConnections.map(ConfigContent.int))
        set(.pdfWorkers, pdfWorkers.map(ConfigContent.int))
        set(.pdfDeadlineSeconds, pdfDeadlineSeconds.map(ConfigContent.int))
        set(.pdfMemoryMiB, pdfMemoryMiB.map(ConfigContent.int))
        set(.token, token.map(ConfigContent.string), isSecret: true)
        set(.database, database.map(ConfigContent.string), isSecret: true)
        set(.contentCheckSeconds, contentCheckSeconds.map(ConfigContent.int))
        set(.roots, roots.isEmpty ? nil : .stringArray(roots))
        set(.logLevel, logLevel.map(ConfigContent.string))
        set(.logFormat, logFormat.map(ConfigContent.string))
        set(.coordinationPollMicroseconds, coordinationPollMicroseconds.map(ConfigContent.int))
        set(.coordinationHandOverPollMicroseconds, coordinationHandOverPollMicroseconds.map(ConfigContent.int))
        set(.coordinationHostPollMicroseconds, coordinationHostPollMicroseconds.map(ConfigContent.int))
        set(.workersPollMicroseconds, workersPollMicroseconds.map(ConfigContent.int))
        set(.workersIdlePollMicroseconds, workersIdlePollMicroseconds.map(ConfigContent.int))
        return InMemoryProvider(name: "flags", values: values).snapshot()
    }
}
