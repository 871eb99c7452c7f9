import Foundation
import Logging
import QuireSystem

/// How a ``CoordinationDomain`` coordinates: where (this process or every process of the user, and through
/// which directory), how long uncoordinated changes are debounced, and where trouble is logged.
///
/// A value, passed in: ``CoordinationDomain/init(configuration:)`` makes a domain with it, and
/// ``CoordinationService/configure(_:)`` sets the one the process-wide ``CoordinationDomain/default`` uses
/// (once, before first use). Nothing reads or writes the environment after that; ``fromEnvironment(_:)`` is
/// only the default source (`QUIRE_COORDINATION_SCOPE`, `QUIRE_COORDINATION_DIR`, `QUIRE_WATCH_DEBOUNCE_MS`,
/// `QUIRE_COORDINATION_QUIET` and the polling windows' `QUIRE_COORDINATION_POLL_MICROSECONDS`,
/// `QUIRE_COORDINATION_HAND_OVER_POLL_MICROSECONDS`, `QUIRE_COORDINATION_HOST_POLL_MICROSECONDS`).
public struct CoordinationConfiguration: Sendable {
    /// Where coordination happens (default ``CoordinationService/Scope/user``).
    public var scope: CoordinationService.Scope
    /// The shared arbiter's directory (used with the `user` scope; mode 0700, created on first use).
    public var directory: URL
    /// The delay after an uncoordinated change before presenters hear of it, during which further changes to
    /// the same item join it (default 20 ms; clamped to 0…60 s).
    public var uncoordinatedChangeDebounce: Duration
    /// How long this process's coordination threads poll before they sleep (default ``CoordinationPolling/default``).
    public var polling: CoordinationPolling
    /// Where the coordination layer logs what it cannot throw: file watching degraded, a host lost and found
    /// again (warnings), connection steps (debug).
    public var logger: Logger

    /// Makes a configuration; every argument has the default the environment would give when unset, except
    /// the logger, which uses the process's logging bootstrap.
    public init(
        scope: CoordinationService.Scope = .user, directory: URL = CoordinationConfiguration.defaultDirectory(),
        uncoordinatedChangeDebounce: Duration = .milliseconds(20), polling: CoordinationPolling = .default,
        logger: Logger = Logger(label: "quire.coordination")
    ) {
        self.scope = scope
        self.directory = directory
        self.uncoordinatedChangeDebounce = max(.zero, min(uncoordinatedChangeDebounce, .seconds(60)))
        self.polling = polling
        self.logger = logger
    }

    /// The shared arbiter's default directory when none is configured: `$XDG_RUNTIME_DIR/quire` if this process's
    /// environment has `XDG_RUNTIME_DIR`, else `/tmp/quire-<uid>`.
    public static func defaultDirectory() -> URL {
        defaultDirectory(lookup: ProcessEnvironment.value)
    }

    /// The shared arbiter's default directory when none is configured: `$XDG_RUNTIME_DIR/quire` if
    /// `environment` has `XDG_RUNTIME_DIR`, else `/tmp/quire-<uid>`.
    public static func defaultDirectory(_ environment: [String: String]) -> URL {
        defaultDirectory { environment[$0] }
    }

    private static func defaultDirectory(lookup: (String) -> String?) -> URL {
        if let runtime = lookup("XDG_RUNTIME_DIR"), !runtime.isEmpty {
            return URL(fileURLWithPath: runtime, isDirectory: true).appendingPathComponent("quire")
        }
        return URL(fileURLWithPath: "/tmp/quire-\(SocketSystem.userID)", isDirectory: true)
    }

    /// The configuration this process's environment describes (see ``fromEnvironment(_:)``), its variables read
    /// one by one rather than through a copy of the whole environment.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` for a scope other than `user` or `process`.
    public static func fromEnvironment() throws(FileCoordinationError) -> CoordinationConfiguration {
        try fromEnvironment(lookup: ProcessEnvironment.value)
    }

    /// The configuration `environment` describes: `QUIRE_COORDINATION_SCOPE` (`user` or `process`, default
    /// `user`), `QUIRE_COORDINATION_DIR` (default ``defaultDirectory(_:)``), `QUIRE_WATCH_DEBOUNCE_MS` (default
    /// 20), the polling windows in microseconds (``CoordinationPolling``: `QUIRE_COORDINATION_POLL_MICROSECONDS`,
    /// `QUIRE_COORDINATION_HAND_OVER_POLL_MICROSECONDS`, `QUIRE_COORDINATION_HOST_POLL_MICROSECONDS`; a value that
    /// is not a whole number keeps the default), and a logger that writes warnings to standard error unless
    /// `QUIRE_COORDINATION_QUIET` is set.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` for a scope other than `user` or `process`.
    public static func fromEnvironment(
        _ environment: [String: String]
    ) throws(FileCoordinationError) -> CoordinationConfiguration {
        try fromEnvironment { environment[$0] }
    }

    private static func fromEnvironment(
        lookup: (String) -> String?
    ) throws(FileCoordinationError) -> CoordinationConfiguration {
        let value = lookup("QUIRE_COORDINATION_SCOPE") ?? ""
        guard let scope = value.isEmpty ? .user : CoordinationService.Scope(rawValue: value) else {
            throw .arbiterUnavailable("QUIRE_COORDINATION_SCOPE must be 'user' or 'process', not '\(value)'")
        }
        var directory = defaultDirectory(lookup: lookup)
        if let configured = lookup("QUIRE_COORDINATION_DIR"), !configured.isEmpty {
            directory = URL(fileURLWithPath: configured, isDirectory: true)
        }
        let debounce = lookup("QUIRE_WATCH_DEBOUNCE_MS").flatMap { Int($0) }.map { Duration.milliseconds($0) }
        func microseconds(_ name: String, _ fallback: Duration) -> Duration {
            lookup(name).flatMap { Int($0) }.map { Duration.microseconds($0) } ?? fallback
        }
        let defaults = CoordinationPolling.default
        let polling = CoordinationPolling(
            waitingClient: microseconds("QUIRE_COORDINATION_POLL_MICROSECONDS", defaults.waitingClient),
            handOver: microseconds("QUIRE_COORDINATION_HAND_OVER_POLL_MICROSECONDS", defaults.handOver),
            host: microseconds("QUIRE_COORDINATION_HOST_POLL_MICROSECONDS", defaults.host))
        return CoordinationConfiguration(
            scope: scope, directory: directory, uncoordinatedChangeDebounce: debounce ?? .milliseconds(20),
            polling: polling, logger: standardErrorLogger(quiet: lookup("QUIRE_COORDINATION_QUIET") != nil))
    }

    /// A logger that writes warnings and worse to standard error (what the library did before it took a
    /// logger), or nothing when `quiet`.
    static func standardErrorLogger(quiet: Bool) -> Logger {
        var logger = Logger(label: "quire.coordination") { label -> any LogHandler in
            quiet ? SwiftLogNoOpLogHandler() : StreamLogHandler.standardError(label: label)
        }
        logger.logLevel = .warning
        return logger
    }

    /// Where the shared arbiter of this configuration lives, and how its threads poll.
    var paths: SharedArbiterPaths { SharedArbiterPaths(directory: directory, polling: polling) }
}
