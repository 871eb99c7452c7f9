import AsyncHTTPClient
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import StoreCore

/// Builds the service: the catalog in the store directory, the document library, the metrics, the router (built-in
/// routes, `/documents…` and `/events`), and the Hummingbird application bound to the configured host and port,
/// with the connection deadlines (``ConnectionDeadlines``) and the content fast path (``ContentFastPath``) in front
/// of Hummingbird's HTTP/1 codec, a connection cap under the open-file limit (raised to its hard limit here), and
/// with the library as a service of its group: it opens the recently used documents when the service starts and
/// closes every document (unregistering its presenters) on shutdown. Run it with `runService()`, which stops
/// gracefully on SIGTERM and SIGINT.
/// - Parameters:
///   - configuration: The checked configuration
///     (``StoreConfiguration/load(configFile:environment:overrides:workingDirectory:)``).
///   - controllers: Routes beyond the service's own.
///   - metrics: The service's metrics (an executable bootstraps `MetricsSystem` with their factory first).
///   - logger: The service's logger; the executable sets its level and handler.
///   - keepAliveInterval: How often an idle event stream gets a keep-alive comment.
///   - eventBufferBound: How many items an event stream may fall behind before it is ended (its client resumes
///     with `Last-Event-ID`).
///   - version: The Quire version the node reports (`GET /nodes`, `quire status`).
///   - control: What the executable reads (the library's activity) and reloads (the token, the upload limit) while
///     the service runs; by default one of its own.
///   - listeningSocket: A listening TCP socket the supervisor handed over (systemd's socket activation, checked
///     by the executable), served instead of binding the configured host and port; nil to bind them.
///   - onServerRunning: Called once the server listens, with its channel (whose `localAddress` has the port
///     chosen when the configured port is 0).
/// - Throws: ``StoreLockError`` when another service holds the store (or its lock cannot be taken),
///   ``CatalogError/cannotOpen(path:reason:)`` when the store's catalog cannot be opened, or the error of creating
///   the upload directory.
public func buildApplication(
    configuration: StoreConfiguration,
    controllers: [any RouteController] = [],
    metrics: StoreMetrics = StoreMetrics(),
    logger: Logger = Logger(label: "quire.serve"),
    keepAliveInterval: Duration = .seconds(15),
    eventBufferBound: Int = 10_000,
    version: String = "unknown",
    control: ServiceControl? = nil,
    listeningSocket: Int32? = nil,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    // One service per store: the lock comes before the catalog, and is held until the library shuts down.
    let storeLock = try StoreLock(storeDirectory: configuration.storeDirectory)
    let catalog = try Catalog(storeDirectory: configuration.storeDirectory)
    let library = try DocumentLibrary(
        catalog: catalog, configuration: configuration, metrics: metrics, logger: logger,
        keepAliveInterval: keepAliveInterval, eventBufferBound: eventBufferBound, version: version)
    return storeApplication(
        library: library, catalog: catalog, configuration: configuration, controllers: controllers,
        metrics: metrics, logger: logger, services: [LibraryService(library: library, storeLock: storeLock)],
        control: control ?? ServiceControl(configuration: configuration), listeningSocket: listeningSocket,
        onServerRunning: onServerRunning)
}

/// Builds a cluster node (``StoreConfiguration/database`` set): as ``buildApplication(configuration:controllers:metrics:logger:keepAliveInterval:eventBufferBound:version:control:listeningSocket:onServerRunning:)``,
/// but the catalog and the event log are the shared PostgreSQL's (``PostgresCatalog``; its schema is brought up to
/// date first, through a client of its own), every node's events reach this node's `/events` clients
/// (``EventFanOutKind/postgres(_:pollInterval:)``), the store directory is shared with the other nodes (no store
/// lock; request bodies stream into a directory of this node's own), and the PostgreSQL client runs as a service
/// of the group.
/// - Throws: ``CatalogError/cannotOpen(path:reason:)`` when the database cannot be reached within 10 s or migrated,
///   or is newer than this build; the error of creating the upload directory.
public func buildClusterApplication(
    configuration: StoreConfiguration,
    database: DatabaseAddress,
    controllers: [any RouteController] = [],
    metrics: StoreMetrics = StoreMetrics(),
    logger: Logger = Logger(label: "quire.serve"),
    keepAliveInterval: Duration = .seconds(15),
    eventBufferBound: Int = 10_000,
    version: String = "unknown",
    control: ServiceControl? = nil,
    listeningSocket: Int32? = nil,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    // PostgresNIO logs every failed connection attempt at info (one line a second while the database is down):
    // the node's own lines (a failing operation, a 503, `/health`) say it once, where it matters.
    var clientLogger = logger
    clientLogger.logLevel = max(logger.logLevel, .warning)
    // The schema first, through a client that lives only for it: the node's own client runs in the group.
    let migrating = PostgresClient(
        configuration: database.clientConfiguration(connections: 2), backgroundLogger: clientLogger)
    let migration = Task { await migrating.run() }
    defer { migration.cancel() }
    _ = try await PostgresCatalog.open(client: migrating, address: database, logger: logger)
    let client = PostgresClient(configuration: database.clientConfiguration(), backgroundLogger: clientLogger)
    // Per-document locks hold a connection each for an operation's length: a pool of their own.
    let lockClient = PostgresClient(
        configuration: database.clientConfiguration(connections: 64), backgroundLogger: clientLogger)
    let catalog = PostgresCatalog.opened(client: client, location: database.description, logger: logger)
    let library = try DocumentLibrary(
        catalog: catalog, configuration: configuration, metrics: metrics, logger: logger,
        keepAliveInterval: keepAliveInterval, eventBufferBound: eventBufferBound,
        cluster: ClusterLink(client: client, lockClient: lockClient, registry: catalog), version: version)
    // Requests for the documents other nodes own go to them (their addresses are on loopback or the cluster's
    // network: a connection is made or refused at once; AsyncHTTPClient retries a refused one until this
    // timeout, which is what a request for a dead owner's document waits before this node looks again).
    var forwarding = HTTPClient.Configuration()
    forwarding.timeout.connect = .milliseconds(500)
    forwarding.redirectConfiguration = .disallow
    let forwardingClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: forwarding)
    return storeApplication(
        library: library, catalog: catalog, configuration: configuration, controllers: controllers,
        metrics: metrics, logger: logger,
        services: [
            PostgresClientService(client: client), PostgresClientService(client: lockClient),
            LibraryService(library: library), HTTPClientService(client: forwardingClient),
        ],
        forwarder: OwnerForwarder(library: library, client: forwardingClient),
        control: control ?? ServiceControl(configuration: configuration), listeningSocket: listeningSocket,
        onServerRunning: onServerRunning)
}

/// The Hummingbird application over `library`: the router (built-in routes, the document routes and
/// `controllers`), the server with the connection deadlines and the content fast path, the connection cap, and
/// `services` in its group, on the configured address or `listeningSocket`; the node's address goes to its
/// membership once the server listens.
private func storeApplication(
    library: DocumentLibrary, catalog: any CatalogDatabase, configuration: StoreConfiguration,
    controllers: [any RouteController], metrics: StoreMetrics, logger: Logger, services: [any Service],
    forwarder: OwnerForwarder? = nil, control: ServiceControl, listeningSocket: Int32?,
    onServerRunning: @escaping @Sendable (any Channel) async -> Void
) -> some ApplicationProtocol {
    control.attach(library)
    let router = buildRouter(
        configuration: configuration, catalog: catalog, metrics: metrics,
        controllers: documentControllers(
            library: library, configuration: configuration, forwarder: forwarder, control: control)
            + controllers,
        control: control)
    let childChannel = StoreHTTP1Channel.store(
        library: library, metrics: metrics, logger: logger, logLevel: .info, serverName: "quire")
    // One child channel for both ways of listening: what Hummingbird's server and the handed socket's serve.
    let cap = ConnectionCap(maximum: ConnectionCap.fitting(configuration.maxConnections), logger: logger)
    let application = Application(
        router: router,
        server: HTTPServerBuilder { responder in childChannel(responder) },
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port), serverName: "quire",
            availableConnectionsDelegate: cap),
        services: services,
        onServerRunning: { channel in
            library.membership.listening(
                at: listeningAddress(channel, configuration, handedOver: listeningSocket != nil))
            await onServerRunning(channel)
        },
        logger: logger
    )
    return StoreApplication(
        base: application, listeningSocket: listeningSocket, connectionCap: cap, childChannel: childChannel)
}

/// The address other nodes reach this one at: `host:port` (``listeningHost(of:configuration:handedOver:)``).
private func listeningAddress(_ channel: any Channel, _ configuration: StoreConfiguration, handedOver: Bool) -> String {
    let port = channel.localAddress?.port ?? configuration.port
    return "\(listeningHost(of: channel, configuration: configuration, handedOver: handedOver)):\(port)"
}

/// The host the server listens on: the configured one when the service bound it; the address of a socket handed
/// over (``buildApplication(configuration:controllers:metrics:logger:keepAliveInterval:eventBufferBound:version:control:listeningSocket:onServerRunning:)``'s
/// `listeningSocket`), unless it listens on every address (`0.0.0.0`, `::`), which names no host: then the
/// configured one.
public func listeningHost(of channel: any Channel, configuration: StoreConfiguration, handedOver: Bool) -> String {
    guard handedOver, let ip = channel.localAddress?.ipAddress, ip != "0.0.0.0", ip != "::" else {
        return configuration.host
    }
    return ip
}

/// Runs a `PostgresClient` as a service of the group: its connections live while the service runs.
struct PostgresClientService: Service {
    let client: PostgresClient

    func run() async throws {
        await cancelWhenGracefulShutdown { await client.run() }
    }
}

/// The controllers of the document routes (`/documents…`, `/events`, `/nodes`) over `library`; a cluster node's
/// `forwarder` sends the requests for documents other nodes own to them; the upload limit is `control`'s (by
/// default the configuration's, fixed).
public func documentControllers(
    library: DocumentLibrary, configuration: StoreConfiguration, forwarder: OwnerForwarder? = nil,
    control: ServiceControl? = nil
) -> [any RouteController] {
    [
        DocumentsController(
            library: library, control: control ?? ServiceControl(configuration: configuration), forwarder: forwarder),
        EventsController(library: library),
        NodesController(library: library, isCluster: configuration.database != nil),
        SearchController(library: library),
    ]
}

/// Builds the router: the service's middleware, then the built-in routes (`/health`, `/metrics`,
/// `/openapi.yaml`, the web page at `/` and `/assets/…`) and `controllers`.
///
/// Middleware, outermost first: `RequestTelemetryMiddleware` (log line, metrics, `X-Request-ID`),
/// `ProblemResponseMiddleware` (every error as problem details; 405 with `Allow` for a known path), and
/// `BearerTokenMiddleware` (while a token is in force, mutating methods need it; so the web page and the reads it
/// makes load without it).
/// HEAD is answered wherever GET is.
/// - Parameters:
///   - configuration: The checked configuration; its token decides whether mutating requests need one.
///   - catalog: The store's catalog, which `/health` checks.
///   - metrics: The metrics the telemetry records and `/metrics` serves.
///   - controllers: The routes beyond the built-in ones.
///   - requestLogLevel: The level of the per-request log line.
///   - control: Where the token in force is read at each request (a reload may change it); by default the
///     configuration's, fixed.
public func buildRouter(
    configuration: StoreConfiguration,
    catalog: any CatalogDatabase,
    metrics: StoreMetrics,
    controllers: [any RouteController] = [],
    requestLogLevel: Logger.Level = .info,
    control: ServiceControl? = nil
) -> Router<StoreRequestContext> {
    let router = Router(context: StoreRequestContext.self, options: .autoGenerateHeadEndpoints)
    // Middleware applies to the routes added after it: add it first.
    router.add(middleware: RequestTelemetryMiddleware(level: requestLogLevel, metrics: HTTPMetrics(metrics)))
    let routes = RouteTable()
    router.add(middleware: ProblemResponseMiddleware(routes: routes))
    router.add(middleware: BearerTokenMiddleware(control: control ?? ServiceControl(configuration: configuration)))
    let builtIn: [any RouteController] = [
        HealthController(catalog: catalog), MetricsController(metrics: metrics), OpenAPIController(),
        WebController(),
    ]
    for controller in builtIn + controllers {
        router.addRoutes(controller.routes, atPath: controller.mountPath)
    }
    routes.fill(from: router)
    return router
}
