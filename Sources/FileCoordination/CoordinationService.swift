import CoordinationArbiter
import Foundation

/// Process-wide settings and operator entry points of file coordination, all about the default
/// ``CoordinationDomain``: its configuration, hosting its shared arbiter in the foreground (`quire coordinator`)
/// and reading its state (`quire claims`).
public enum CoordinationService {
    /// Where coordination happens.
    public enum Scope: String, Sendable {
        /// Only between the coordinators and presenters of this process.
        case process
        /// Between every process of this user on this machine, through the shared arbiter (the default).
        case user
    }

    /// Sets the configuration of the process-wide ``CoordinationDomain/default`` (which every coordinator made
    /// without a domain uses). Call it once, before the first coordinator, presenter or status query; without
    /// it, the default domain reads ``CoordinationConfiguration/fromEnvironment(_:)`` on first use.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` if the default domain is in use already.
    public static func configure(_ configuration: CoordinationConfiguration) throws(FileCoordinationError) {
        try DefaultCoordination.configure(configuration)
    }

    /// The default domain's scope: as configured, else from `QUIRE_COORDINATION_SCOPE` (`user` when unset).
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` for an invalid value in the environment.
    public static func scope() throws(FileCoordinationError) -> Scope {
        try DefaultCoordination.configuration().scope
    }

    /// The default domain's shared-arbiter directory: as configured, else `QUIRE_COORDINATION_DIR`, else
    /// `$XDG_RUNTIME_DIR/quire`, else `/tmp/quire-<uid>`. It is not created or checked here (see
    /// ``hostInForeground(onReady:)``).
    public static var directory: URL {
        (try? DefaultCoordination.configuration().directory) ?? CoordinationConfiguration.defaultDirectory()
    }

    /// The default domain's debounce of uncoordinated changes: as configured, else `QUIRE_WATCH_DEBOUNCE_MS`
    /// milliseconds (default 20).
    public static var uncoordinatedChangeDebounce: Duration {
        (try? DefaultCoordination.configuration().uncoordinatedChangeDebounce) ?? .milliseconds(20)
    }

    /// The presenters and claims of the default domain's arbiter: the shared one (without starting it when
    /// nobody hosts it: then nothing is held) or, with the `process` scope, this process's own.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` when the configuration is invalid, the
    ///   directory is unsafe, the host refuses, or does not answer within a few seconds.
    public static func status() throws(FileCoordinationError) -> CoordinationStatus {
        try CoordinationDomain.default.status()
    }

    /// Returns once the arbiter has processed every event this process sent before the call (presenter
    /// registrations in particular): after it, another process's coordinated access sees those presenters.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` when the arbiter cannot answer.
    public static func synchronize() throws(FileCoordinationError) {
        try CoordinationDomain.default.synchronize()
    }

    /// How many of this process's coordinated accesses, across every domain, passed through the shared arbiter's
    /// hand-over board rather than by a frame from its host: `received` were granted there (handed over by the
    /// process whose access ended before), `passedOn` ended there (handing the access to the next process). A
    /// diagnostic for benchmarks and tests; both only grow.
    public static var handOvers: (received: Int, passedOn: Int) {
        (HandOverCounts.received.load(ordering: .relaxed), HandOverCounts.passedOn.load(ordering: .relaxed))
    }

    /// Hosts the shared arbiter on this thread until the process receives SIGINT or SIGTERM (then returns),
    /// creating the directory (0700) if needed; `onReady` is called with the socket's URL once clients can
    /// connect.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` when another process already hosts it (the
    ///   message names its pid), or the directory or socket is unsafe (wrong owner or mode) or cannot be made.
    public static func hostInForeground(onReady: (URL) -> Void) throws(FileCoordinationError) {
        try SharedArbiterHost.hostInForeground(
            paths: DefaultCoordination.configuration().paths, handedOver: nil, onReady: onReady)
    }

    /// The path of the shared arbiter's socket, where clients connect (`arbiter.sock` in the coordination
    /// directory): what a socket handed over to ``hostInForeground(listeningOn:onReady:)`` must be bound to.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` when the configuration is invalid.
    public static func arbiterSocketPath() throws(FileCoordinationError) -> String {
        try DefaultCoordination.configuration().paths.socket
    }

    /// As ``hostInForeground(onReady:)``, but accepting clients on `listener`, a listening Unix stream socket
    /// bound to ``arbiterSocketPath()`` that the supervisor made and handed over (systemd's socket activation):
    /// the host still takes the lock, and leaves the socket file in place when it stops (it is the
    /// supervisor's, which starts the host again at the next connection).
    /// - Throws: As ``hostInForeground(onReady:)``.
    public static func hostInForeground(listeningOn listener: Int32, onReady: (URL) -> Void)
        throws(FileCoordinationError)
    {
        try SharedArbiterHost.hostInForeground(
            paths: DefaultCoordination.configuration().paths, handedOver: listener, onReady: onReady)
    }
}
