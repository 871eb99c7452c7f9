import FileCoordination
import Foundation
import Logging

/// The settings of the document-store service, after every source was read and every value checked.
///
/// Build it with ``load(configFile:environment:overrides:workingDirectory:)``: flags beat environment variables,
/// which beat the configuration file, which beats the built-in defaults (the same values as `config/quire.json`).
/// Paths are absolute; roots are resolved through symbolic links, so that a path can be checked against them by
/// prefix.
public struct StoreConfiguration: Sendable, Equatable {
    /// Which processes coordinate with the service: every process of the user (`user`, a shared arbiter, so that
    /// other programs' coordinated writes are seen) or only this one (`process`, for tests and single-process
    /// use). The coordination library's own scope, passed to it as it is.
    public typealias CoordinationScope = CoordinationService.Scope

    /// The store directory: uploads, `catalog.sqlite` (catalog and event log). Created on first use.
    public var storeDirectory: URL
    /// The address the HTTP service binds (`127.0.0.1` by default: loopback only).
    public var host: String
    /// The TCP port; 0 asks the system for a free one.
    public var port: Int
    /// The coordination scope the service uses.
    public var coordinationScope: CoordinationScope
    /// The largest request body accepted for an upload, in bytes.
    public var maxUploadBytes: Int
    /// How many documents the service keeps open at once (least recently used first closed).
    public var maxOpenDocuments: Int
    /// The largest DPI a page may be rendered at.
    public var maxDPI: Int
    /// The most upload bytes in flight at once, over every upload: beyond it new uploads are refused (503 with
    /// `Retry-After`).
    public var uploadBudgetBytes: Int
    /// How long a connection may take to send a complete request head, from its opening or from the first byte
    /// after an earlier response.
    public var headerTimeout: Duration
    /// How long a connection may stay silent between requests, in a request body, or in a response body that
    /// makes no progress.
    public var idleTimeout: Duration
    /// The minimum average rate, in bytes a second, of a request body once ``bodyGrace`` has passed: a slower
    /// body is cut with 408 and its upload budget released (0: no minimum; default 16384).
    public var minBodyBytesPerSecond: Int = 16_384
    /// How long a request body may come at any rate before ``minBodyBytesPerSecond`` holds (10 s).
    public var bodyGrace: Duration = .seconds(10)
    /// The most time one request body may take from its head to its end (default 1800 s): past it the body is
    /// cut with 408.
    public var bodyTimeout: Duration = .seconds(1800)
    /// The most connections held at once (kept below the process's open-file limit at start).
    public var maxConnections: Int
    /// The bearer token every mutating request must carry; nil leaves mutating routes open.
    public var token: String?
    /// Cluster mode: the PostgreSQL that holds the catalog and the event log, shared by the nodes; nil for one
    /// node with its SQLite catalog in the store directory.
    public var database: DatabaseAddress?
    /// The directories whose files may be registered by path (absolute, symbolic links resolved).
    public var roots: [URL]
    /// How many PDF worker processes render pages and extract text (default: the number of cores).
    public var pdfWorkers: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// How long one PDF request (render, text) may wait for a worker and then run: past it the request fails
    /// and a running worker is killed and replaced (default 10 s).
    public var pdfDeadline: Duration = .seconds(10)
    /// The address space one PDF worker may map, in MiB (`RLIMIT_AS`; default 2048): a PDF whose parse or render
    /// needs more fails in its worker (422), never in the service.
    public var pdfMemoryMiB: Int = 2048
    /// How long the service's threads and its PDF workers poll before they sleep (the defaults measured on a
    /// 2-vCPU machine; `Docs/performance.md` gives their cost).
    public var polling = Polling()

    /// The polling windows: latency bought with CPU, spent only while something is in flight (an idle service
    /// polls nothing). Each is 0 (sleep at once) to 100 ms.
    public struct Polling: Sendable, Equatable {
        /// The coordination threads' windows (`coordination.pollMicroseconds`,
        /// `coordination.handOverPollMicroseconds`, `coordination.hostPollMicroseconds`).
        public var coordination: CoordinationPolling
        /// The longest the service polls for a PDF worker's reply before it sleeps, while no other request runs
        /// (`workers.pollMicroseconds`, default 2 ms); each worker's window adapts below it (`AdaptivePollWindow`).
        public var workerReply: Duration
        /// The longest an idle PDF worker polls for its next request before it sleeps
        /// (`workers.idlePollMicroseconds`, default 1.5 ms); the window adapts below it (`AdaptivePollWindow`).
        public var workerIdle: Duration

        /// Polling windows; the defaults are the measured ones.
        public init(
            coordination: CoordinationPolling = .default, workerReply: Duration = .milliseconds(2),
            workerIdle: Duration = .microseconds(1500)
        ) {
            self.coordination = coordination
            self.workerReply = workerReply
            self.workerIdle = workerIdle
        }
    }
    /// How often the node compares the files of the documents it owns (every document, for one node) with the
    /// catalog, and records what changed: for files written where no node's inotify or coordination sees them
    /// (another host's clients on a network file system). Nil (the default): never.
    public var contentCheckInterval: Duration?
    /// The lowest level of log line the service writes (default `info`).
    public var logLevel: Logger.Level = .info
    /// How the service writes its log lines (default ``LogFormat/text``).
    public var logFormat: LogFormat = .text

    /// How log lines are written.
    public enum LogFormat: String, Sendable, CaseIterable {
        /// One line of text each: with its time, or, when standard error is the journal, with a `<N>` priority
        /// prefix and no time of its own.
        case text
        /// One JSON object each, for log shippers.
        case json
    }

    /// The `quire-pdf` executable the workers run; nil takes the one next to this process's executable (or
    /// `QUIRE_PDF_WORKER`).
    public var pdfWorkerExecutable: String?

    /// The SQLite database inside the store directory that holds the catalog and the event log.
    public var catalogURL: URL { storeDirectory.appendingPathComponent("catalog.sqlite", isDirectory: false) }

    /// Makes a configuration from values that are already checked: for tests and embedding. Values not given
    /// are the built-in defaults.
    public init(
        storeDirectory: URL,
        host: String = "127.0.0.1",
        port: Int = 8080,
        coordinationScope: CoordinationScope = .user,
        maxUploadBytes: Int = 104_857_600,
        maxOpenDocuments: Int = 64,
        maxDPI: Int = 600,
        uploadBudgetBytes: Int = 536_870_912,
        headerTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        maxConnections: Int = 10_000,
        token: String? = nil,
        roots: [URL] = []
    ) {
        self.storeDirectory = storeDirectory
        self.host = host
        self.port = port
        self.coordinationScope = coordinationScope
        self.maxUploadBytes = maxUploadBytes
        self.maxOpenDocuments = maxOpenDocuments
        self.maxDPI = maxDPI
        self.uploadBudgetBytes = uploadBudgetBytes
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.token = token
        self.roots = roots
    }
}
