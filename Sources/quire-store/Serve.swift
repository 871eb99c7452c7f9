import ArgumentParser
import DocumentStore
import FileCoordination
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import QuireCommandLine
import ServiceLifecycle
import Supervision
import UnixSignals

/// `quire serve`: reads the configuration, then runs the document-store service until SIGINT or SIGTERM, telling
/// a supervisor (systemd, `Type=notify`) when it is ready, what it does, that it is alive and that it stops, and
/// reloading what it can on SIGHUP.
struct Serve: AsyncParsableCommand {
    static let configuration = ServeArguments.configuration

    @OptionGroup var arguments: ServeArguments

    func run() async throws {
        try await reportingFailures {
            let configuration = try loadConfiguration()
            let supervisor = try Self.supervisorEnvironment()
            // Before anything starts a child process: the variables go, whatever they said.
            let handedOver = try Self.handedOverListener()
            let levels = LogLevelControl(configuration.logLevel)
            let format = Self.logFormat(configuration, journal: SupervisedLogHandler.standardErrorIsJournal(supervisor))
            LoggingSystem.bootstrap { label in SupervisedLogHandler(label: label, format: format, control: levels) }
            try Self.configureCoordination(configuration)
            let metrics = StoreMetrics()
            MetricsSystem.bootstrap(metrics.metricsFactory)
            let logger = Logger(label: "quire.serve")
            let control = ServiceControl(configuration: configuration)
            let reloader = ConfigurationReloader(
                configFile: arguments.config, overrides: arguments.overrides, control: control, levels: levels,
                logger: logger)
            let notifier = try Self.notifier(supervisor, logger: logger) { await reloader.reload() }
            defer { notifier.close() }
            notifier.started()
            // Trapped before the server can accept: from READY=1 on, SIGHUP reloads and never ends the process.
            let hangups = await UnixSignalsSequence(trapping: .sighup)
            let supervision = SupervisionService(notifier: notifier, control: control, hangups: hangups)
            let onRunning: @Sendable (any Channel) async -> Void = { channel in
                Self.announce(channel, configuration, handedOver: handedOver != nil)
                if let activity = control.activity() { notifier.statusChanged(activity.description) }
                notifier.listening()
            }
            if let database = configuration.database {
                try await Self.run(
                    try await makeClusterNode(
                        configuration, database: database, metrics: metrics, control: control,
                        listeningSocket: handedOver?.descriptor, onRunning: onRunning),
                    supervision: supervision, configuration, logger: logger)
            } else {
                try await Self.run(
                    try makeApplication(
                        configuration, metrics: metrics, control: control, listeningSocket: handedOver?.descriptor,
                        onRunning: onRunning),
                    supervision: supervision, configuration, logger: logger)
            }
        }
    }

    /// What the supervisor said in the environment; a variable it set that cannot be used is exit code 78.
    private static func supervisorEnvironment() throws -> SupervisorEnvironment {
        do {
            return try SupervisorEnvironment(ProcessInfo.processInfo.environment, processID: getpid())
        } catch {
            throw CommandFailure(error.description, exitCode: CommandFailure.configuration)
        }
    }

    /// The listening TCP socket systemd handed over (socket activation: `LISTEN_FDS`, `LISTEN_PID`), checked and
    /// close-on-exec; nil when none was. One that cannot be served is exit code 78.
    private static func handedOverListener() throws -> InheritedListener? {
        do {
            guard let activation = try SocketActivation.fromEnvironment(processID: getpid()) else { return nil }
            return try InheritedListener.adopt(try activation.single(), family: .internet)
        } catch {
            throw CommandFailure("\(error)", exitCode: CommandFailure.configuration)
        }
    }

    /// The notifier to `NOTIFY_SOCKET` (none set: it sends nothing, and SIGHUP still reloads).
    private static func notifier(
        _ supervisor: SupervisorEnvironment, logger: Logger, reload: @escaping @Sendable () async -> Void
    ) throws -> SupervisorNotifier {
        do {
            return try SupervisorNotifier(environment: supervisor, logger: logger, reload: reload)
        } catch {
            throw CommandFailure("cannot make the socket to NOTIFY_SOCKET: \(error)", exitCode: CommandFailure.software)
        }
    }

    /// The shape of the log lines: JSON when configured, the journal's when standard error is the journal.
    private static func logFormat(_ configuration: StoreConfiguration, journal: Bool) -> LogLineFormat {
        switch configuration.logFormat {
        case .json: LogLineFormat(style: .json(journal: journal))
        case .text: LogLineFormat(style: journal ? .journal : .text)
        }
    }

    /// Gives the process's coordination domain the configured scope and polling windows (the directory and the
    /// debounce from the environment, as every coordinating process reads them) and the service's logging, before
    /// anything coordinates.
    private static func configureCoordination(_ configuration: StoreConfiguration) throws {
        var coordination = try CoordinationConfiguration.fromEnvironment()
        coordination.scope = configuration.coordinationScope
        coordination.polling = configuration.polling.coordination
        coordination.logger = Logger(label: "quire.coordination")
        try CoordinationService.configure(coordination)
    }

    /// The configuration from the flags, `QUIRE_*` and the file; an invalid one is exit code 78.
    private func loadConfiguration() throws -> StoreConfiguration {
        do {
            return try StoreConfiguration.load(configFile: arguments.config, overrides: arguments.overrides)
        } catch {
            throw CommandFailure(error.description, exitCode: CommandFailure.configuration)
        }
    }

    /// Runs the application and the supervision until SIGINT or SIGTERM, which stop both gracefully (the
    /// supervision first: `STOPPING=1` goes out as the shutdown starts).
    private static func run(
        _ application: some ApplicationProtocol, supervision: SupervisionService,
        _ configuration: StoreConfiguration, logger: Logger
    ) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    ServiceGroupConfiguration.ServiceConfiguration(service: application),
                    ServiceGroupConfiguration.ServiceConfiguration(service: supervision),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            throw ServiceFailure.failure(error, configuration: configuration)
        }
    }

    /// The listening line, printed once the server accepts connections (on a socket handed over, its address).
    private static func announce(_ channel: any Channel, _ configuration: StoreConfiguration, handedOver: Bool) {
        let port = channel.localAddress?.port ?? configuration.port
        let host = listeningHost(of: channel, configuration: configuration, handedOver: handedOver)
        StandardStreams.print("quire serve: listening on \(ServiceFailure.url(host: host, port: port))\n")
    }

    /// A cluster node on `database` (``StoreConfiguration/database``), on `listeningSocket` when one was handed
    /// over, which calls `onRunning` once it accepts connections.
    private func makeClusterNode(
        _ configuration: StoreConfiguration, database: DatabaseAddress, metrics: StoreMetrics,
        control: ServiceControl, listeningSocket: Int32?, onRunning: @escaping @Sendable (any Channel) async -> Void
    ) async throws -> some ApplicationProtocol {
        do {
            return try await buildClusterApplication(
                configuration: configuration, database: database, metrics: metrics,
                logger: Logger(label: "quire.serve"), version: QuireVersion.current, control: control,
                listeningSocket: listeningSocket, onServerRunning: onRunning)
        } catch {
            throw ServiceFailure.storeFailure(error, configuration: configuration)
        }
    }

    /// The application, on `listeningSocket` when one was handed over, which calls `onRunning` once it accepts
    /// connections.
    private func makeApplication(
        _ configuration: StoreConfiguration, metrics: StoreMetrics, control: ServiceControl,
        listeningSocket: Int32?, onRunning: @escaping @Sendable (any Channel) async -> Void
    ) throws -> some ApplicationProtocol {
        do {
            return try buildApplication(
                configuration: configuration, metrics: metrics, logger: Logger(label: "quire.serve"),
                version: QuireVersion.current, control: control, listeningSocket: listeningSocket,
                onServerRunning: onRunning)
        } catch {
            throw ServiceFailure.storeFailure(error, configuration: configuration)
        }
    }
}
