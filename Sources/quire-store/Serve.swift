import ArgumentParser
import DocumentStore
import FileCoordination
import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import QuireCommandLine

/// `quire serve`: reads the configuration, then runs the document-store service until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = ServeArguments.configuration

    @OptionGroup var arguments: ServeArguments

    func run() async throws {
        try await reportingFailures {
            let configuration = try loadConfiguration()
            let level = Self.logLevel()
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            try Self.configureCoordination(configuration)
            let metrics = StoreMetrics()
            MetricsSystem.bootstrap(metrics.metricsFactory)
            if let database = configuration.database {
                try await Self.run(try await makeClusterNode(configuration, database: database, metrics: metrics),
                    configuration)
            } else {
                try await Self.run(try makeApplication(configuration, metrics: metrics), configuration)
            }
        }
    }

    /// Gives the process's coordination domain the configured scope (the rest from the environment) and the
    /// service's logging, before anything coordinates.
    private static func configureCoordination(_ configuration: StoreConfiguration) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["QUIRE_COORDINATION_SCOPE"] = configuration.coordinationScope.rawValue
        var coordination = try CoordinationConfiguration.fromEnvironment(environment)
        coordination.logger = Logger(label: "quire.coordination")
        try CoordinationService.configure(coordination)
    }

    /// The log level: `QUIRE_LOG_LEVEL` (trace, debug, info, notice, warning, error, critical), else info.
    private static func logLevel() -> Logger.Level {
        ProcessInfo.processInfo.environment["QUIRE_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0.lowercased()) }
            ?? .info
    }

    /// The configuration from the flags, `QUIRE_*` and the file; an invalid one is exit code 78.
    private func loadConfiguration() throws -> StoreConfiguration {
        do {
            return try StoreConfiguration.load(configFile: arguments.config, overrides: arguments.overrides)
        } catch {
            throw CommandFailure(error.description, exitCode: CommandFailure.configuration)
        }
    }

    /// Runs the application until SIGINT or SIGTERM.
    private static func run(_ application: some ApplicationProtocol, _ configuration: StoreConfiguration) async throws {
        do {
            try await application.runService()
        } catch {
            throw ServiceFailure.failure(error, configuration: configuration)
        }
    }

    /// The listening line, printed once the server accepts connections.
    private static func announce(_ channel: any Channel, _ configuration: StoreConfiguration) {
        let port = channel.localAddress?.port ?? configuration.port
        StandardStreams.print("quire serve: listening on \(ServiceFailure.url(host: configuration.host, port: port))\n")
    }

    /// A cluster node on `database` (``StoreConfiguration/database``), which prints the listening line once it
    /// accepts connections.
    private func makeClusterNode(
        _ configuration: StoreConfiguration, database: DatabaseAddress, metrics: StoreMetrics
    ) async throws -> some ApplicationProtocol {
        do {
            return try await buildClusterApplication(
                configuration: configuration, database: database, metrics: metrics,
                logger: Logger(label: "quire.serve"), version: QuireVersion.current
            ) { channel in Self.announce(channel, configuration) }
        } catch {
            throw ServiceFailure.storeFailure(error, configuration: configuration)
        }
    }

    /// The application, which prints the listening line once it accepts connections.
    private func makeApplication(_ configuration: StoreConfiguration, metrics: StoreMetrics) throws
        -> some ApplicationProtocol
    {
        do {
            return try buildApplication(
                configuration: configuration, metrics: metrics, logger: Logger(label: "quire.serve"),
                version: QuireVersion.current
            ) { channel in Self.announce(channel, configuration) }
        } catch {
            throw ServiceFailure.storeFailure(error, configuration: configuration)
        }
    }
}
