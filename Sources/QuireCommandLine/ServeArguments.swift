import ArgumentParser

/// The arguments and help of `quire serve`, shared by `quire` (which lists and parses them, then hands the
/// command to `quire-store`) and `quire-store` (which runs the service).
public struct ServeArguments: ParsableArguments {
    /// The configuration of the `serve` subcommand in both executables.
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the document-store HTTP service until SIGINT or SIGTERM.",
        discussion: """
            Flags beat QUIRE_* environment variables (QUIRE_HOST, QUIRE_PORT, QUIRE_STORE, QUIRE_ROOTS \
            colon-separated, QUIRE_TOKEN, QUIRE_COORDINATION_SCOPE, QUIRE_MAX_UPLOAD_BYTES, \
            QUIRE_MAX_OPEN_DOCUMENTS, QUIRE_MAX_DPI, QUIRE_UPLOAD_BUDGET_BYTES, QUIRE_HEADER_TIMEOUT_SECONDS, \
            QUIRE_IDLE_TIMEOUT_SECONDS, QUIRE_MIN_BODY_BYTES_PER_SECOND, QUIRE_BODY_TIMEOUT_SECONDS, \
            QUIRE_MAX_CONNECTIONS, QUIRE_PDF_WORKERS, QUIRE_PDF_DEADLINE_SECONDS, \
            QUIRE_PDF_MEMORY_MIB, QUIRE_DATABASE, QUIRE_CONTENT_CHECK_SECONDS, QUIRE_LOG_LEVEL, QUIRE_LOG_FORMAT), \
            which beat the --config file, which beats the built-in defaults (config/quire.json; config/README.md \
            lists every key). Prints "quire serve: listening on \
            http://HOST:PORT" on standard output once it accepts connections (with the port chosen when --port \
            is 0); the log goes to standard error. SIGINT or SIGTERM stops it gracefully; SIGHUP reads the \
            configuration again (the token, the upload limit and the log level change at once; other keys need a \
            restart). Under systemd (Type=notify) it reports READY=1 once it accepts connections, STATUS= lines, \
            watchdog pings and STOPPING=1. Started by systemd's quire.socket (LISTEN_FDS, LISTEN_PID), it serves \
            the TCP socket handed over instead of binding the host and port.

            Exit codes: 0 stopped by SIGINT or SIGTERM; 64 bad usage; 69 the address cannot be bound; 70 \
            internal failure; 73 the store directory or its catalog cannot be opened; 75 another quire serve \
            uses the store (it holds the store's lock, quire.lock); 78 invalid configuration \
            (one line naming the key, the value and its source), or a socket handed over that cannot be served.
            """
    )

    /// The JSON configuration file.
    @Option(help: ArgumentHelp("A JSON configuration file (keys in config/README.md).", valueName: "file"))
    public var config: String?

    /// The address to bind.
    @Option(help: ArgumentHelp("The address to bind (default: 127.0.0.1, loopback only).", valueName: "host"))
    public var host: String?

    /// The TCP port.
    @Option(help: ArgumentHelp("The TCP port; 0 picks a free one (default: 8080).", valueName: "port"))
    public var port: Int?

    /// The store directory.
    @Option(
        help: ArgumentHelp("The store directory: uploads and the catalog (default: ./.quire-data).", valueName: "dir"))
    public var store: String?

    /// The directories whose files may be registered by path.
    @Option(
        name: .customLong("root"),
        help: ArgumentHelp("A directory whose files may be registered by path; repeat for more.", valueName: "dir"))
    public var roots: [String] = []

    /// The bearer token.
    @Option(help: ArgumentHelp("The bearer token every change must carry (default: none).", valueName: "token"))
    public var token: String?

    /// Cluster mode's PostgreSQL.
    @Option(
        help: ArgumentHelp(
            "Run as a cluster node on this PostgreSQL, postgres://user[:password]@host[:port]/database (default: one node on SQLite).",
            valueName: "url"))
    public var database: String?

    /// The coordination scope, `user` or `process`.
    @Option(
        name: .customLong("coordination-scope"),
        help: ArgumentHelp(
            "Coordinate with every process of the user, or only within the service.", valueName: "user|process"))
    public var coordinationScope: String?

    /// The upload limit in bytes.
    @Option(
        name: .customLong("max-upload-bytes"),
        help: ArgumentHelp("The largest PDF an upload may send, in bytes (default: 104857600).", valueName: "n"))
    public var maxUploadBytes: Int?

    /// How many documents stay open at once.
    @Option(
        name: .customLong("max-open-documents"),
        help: ArgumentHelp("How many documents stay open at once (default: 64).", valueName: "n"))
    public var maxOpenDocuments: Int?

    /// The largest rendering resolution.
    @Option(
        name: .customLong("max-dpi"),
        help: ArgumentHelp("The largest resolution a page is rendered at (default: 600, at most 1200).", valueName: "n")
    )
    /// The largest rendering resolution.
    public var maxDPI: Int?

    /// The budget of upload bytes in flight.
    @Option(
        name: .customLong("upload-budget-bytes"),
        help: ArgumentHelp(
            "The most upload bytes in flight over all uploads; more get 503 (default: 536870912).", valueName: "n"))
    public var uploadBudgetBytes: Int?

    /// The request-header timeout.
    @Option(
        name: .customLong("header-timeout-seconds"),
        help: ArgumentHelp("How long a client may take to send a request head (default: 10).", valueName: "n"))
    public var headerTimeoutSeconds: Int?

    /// The idle timeout.
    @Option(
        name: .customLong("idle-timeout-seconds"),
        help: ArgumentHelp("How long a connection may stay silent (default: 60).", valueName: "n"))
    public var idleTimeoutSeconds: Int?

    /// The minimum rate of a request body.
    @Option(
        name: .customLong("min-body-bytes-per-second"),
        help: ArgumentHelp(
            "The slowest average rate a request body may come at after its first 10 seconds; 0 for no minimum "
                + "(default: 16384).", valueName: "n"))
    public var minBodyBytesPerSecond: Int?

    /// The body deadline.
    @Option(
        name: .customLong("body-timeout-seconds"),
        help: ArgumentHelp("The most time one request body may take (default: 1800).", valueName: "n"))
    public var bodyTimeoutSeconds: Int?

    /// The connection cap.
    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp("The most connections held at once (default: 10000).", valueName: "n"))
    public var maxConnections: Int?

    /// How many PDF worker processes.
    @Option(
        name: .customLong("pdf-workers"),
        help: ArgumentHelp(
            "How many PDF worker processes render and extract text (default: one per core).", valueName: "n"))
    public var pdfWorkers: Int?

    /// How often the documents' files are compared with the catalog.
    @Option(
        name: .customLong("content-check-seconds"),
        help: ArgumentHelp(
            "How often to compare the files of the documents this node owns with the catalog, for changes no "
                + "watcher sees (a network file system's other hosts); 0 = never (default: 0).",
            valueName: "n"))
    public var contentCheckSeconds: Int?

    /// The deadline of one PDF request.
    @Option(
        name: .customLong("pdf-deadline-seconds"),
        help: ArgumentHelp("How long one page render or text extraction may take (default: 10).", valueName: "n"))
    public var pdfDeadlineSeconds: Int?

    /// The address space of one PDF worker.
    @Option(
        name: .customLong("pdf-memory-mib"),
        help: ArgumentHelp("The memory one PDF worker process may map, in MiB (default: 2048).", valueName: "n"))
    public var pdfMemoryMiB: Int?

    /// How long a thread waiting for a coordination grant polls before it sleeps, in µs.
    @Option(
        name: .customLong("coordination-poll-microseconds"),
        help: ArgumentHelp("How long a thread waiting for a coordination grant polls before it sleeps, in µs (default: 200).", valueName: "n"))
    public var coordinationPollMicroseconds: Int?

    /// How long a waiting thread polls the hand-over board for a grant another client passes on, in µs.
    @Option(
        name: .customLong("coordination-hand-over-poll-microseconds"),
        help: ArgumentHelp("How long a waiting thread polls the hand-over board for a grant another client passes on, in µs (default: 500).", valueName: "n"))
    public var coordinationHandOverPollMicroseconds: Int?

    /// How long the arbiter host polls its clients after handling one, in µs.
    @Option(
        name: .customLong("coordination-host-poll-microseconds"),
        help: ArgumentHelp("How long the arbiter host polls its clients after handling one, in µs (default: 100).", valueName: "n"))
    public var coordinationHostPollMicroseconds: Int?

    /// How long the service polls for a PDF worker's reply before it sleeps, in µs.
    @Option(
        name: .customLong("workers-poll-microseconds"),
        help: ArgumentHelp("How long the service polls for a PDF worker's reply before it sleeps, in µs (default: 2000).", valueName: "n"))
    public var workersPollMicroseconds: Int?

    /// How long an idle PDF worker polls for its next request before it sleeps, in µs.
    @Option(
        name: .customLong("workers-idle-poll-microseconds"),
        help: ArgumentHelp("How long an idle PDF worker polls for its next request before it sleeps, in µs (default: 1500).", valueName: "n"))
    public var workersIdlePollMicroseconds: Int?

    /// The lowest level of log line written.
    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "The lowest level of log line written: trace, debug, info, notice, warning, error or critical (default: info).",
            valueName: "level"))
    public var logLevel: String?

    /// How log lines are written.
    @Option(
        name: .customLong("log-format"),
        help: ArgumentHelp(
            "How log lines are written: text (with a priority prefix and no time under systemd's journal) or json "
                + "(default: text).", valueName: "text|json"))
    public var logFormat: String?

    /// Makes empty arguments (ArgumentParser fills them in).
    public init() {}
}
