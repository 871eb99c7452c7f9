import CoordinationArbiter
import Foundation

/// Process-wide settings and operator entry points of file coordination: the scope, the shared arbiter's
/// directory, hosting it in the foreground (`quire coordinator`) and reading its state (`quire claims`).
public enum CoordinationService {
    /// Where coordination happens.
    public enum Scope: String, Sendable {
        /// Only between the coordinators and presenters of this process.
        case process
        /// Between every process of this user on this machine, through the shared arbiter (the default).
        case user
    }

    /// The scope from `QUIRE_COORDINATION_SCOPE` (`user` when unset).
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` for another value.
    public static func scope() throws(FileCoordinationError) -> Scope {
        let value = ProcessInfo.processInfo.environment["QUIRE_COORDINATION_SCOPE"] ?? ""
        if value.isEmpty { return .user }
        guard let scope = Scope(rawValue: value) else {
            throw .arbiterUnavailable("QUIRE_COORDINATION_SCOPE must be 'user' or 'process', not '\(value)'")
        }
        return scope
    }

    /// The shared arbiter's directory: `QUIRE_COORDINATION_DIR`, else `$XDG_RUNTIME_DIR/quire`, else
    /// `/tmp/quire-<uid>`. It is not created or checked here (see ``hostInForeground(onReady:)``).
    public static var directory: URL {
        SharedArbiterPaths.fromEnvironment().directory
    }

    /// The delay after an uncoordinated change before presenters hear of it, during which further changes
    /// to the same item join it: `QUIRE_WATCH_DEBOUNCE_MS` milliseconds (default 20).
    public static var uncoordinatedChangeDebounce: Duration {
        let value = ProcessInfo.processInfo.environment["QUIRE_WATCH_DEBOUNCE_MS"].flatMap { Int($0) }
        return .milliseconds(max(0, min(value ?? 20, 60_000)))
    }

    /// The presenters and claims of the arbiter this process uses: the shared one (without starting it when
    /// nobody hosts it: then nothing is held) or, with the `process` scope, this process's own.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` when the directory is unsafe, the host
    ///   refuses, or does not answer within two seconds.
    public static func status() throws(FileCoordinationError) -> CoordinationStatus {
        switch try scope() {
        case .process:
            let snapshot = try CoordinationClient.shared.endpoint.snapshot()
            return CoordinationStatus(scope: "process", hostPID: getpid(), snapshot: snapshot, now: SystemInterface.now())
        case .user:
            return try SharedArbiterStatus.fetch(paths: SharedArbiterPaths.fromEnvironment())
        }
    }

    /// Returns once the arbiter has processed every event this process sent before the call (presenter
    /// registrations in particular): after it, another process's coordinated access sees those presenters.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` when the arbiter cannot answer.
    public static func synchronize() throws(FileCoordinationError) {
        _ = try CoordinationClient.shared.endpoint.snapshot()
    }

    /// Hosts the shared arbiter on this thread until the process receives SIGINT or SIGTERM (then returns),
    /// creating the directory (0700) if needed; `onReady` is called with the socket's URL once clients can
    /// connect.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` when another process already hosts it (the
    ///   message names its pid), or the directory or socket is unsafe (wrong owner or mode) or cannot be made.
    public static func hostInForeground(onReady: (URL) -> Void) throws(FileCoordinationError) {
        try SharedArbiterHost.hostInForeground(paths: SharedArbiterPaths.fromEnvironment(), onReady: onReady)
    }
}
