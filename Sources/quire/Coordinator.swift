import ArgumentParser
import FileCoordination
import Foundation
import Logging
import QuireCommandLine
import Supervision

#if canImport(Glibc)
import Glibc
#endif

/// `quire coordinator`: hosts the shared arbiter in the foreground.
struct Coordinator: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Host the shared file-coordination arbiter in the foreground until SIGINT or SIGTERM.",
        discussion: """
            Any process that coordinates hosts the arbiter when nobody does; run this for a dedicated one. \
            It serves the directory in QUIRE_COORDINATION_DIR (default $XDG_RUNTIME_DIR/quire, else \
            /tmp/quire-<uid>) and prints "hosting the shared arbiter at SOCKET (pid N)" on standard error when \
            clients can connect. Started by systemd's quire-coordinator.socket (LISTEN_FDS, LISTEN_PID), it \
            serves the Unix socket handed over, which must be bound to that directory's arbiter.sock, and \
            leaves it in place when it stops. Under systemd (Type=notify) it sends READY=1 once clients can \
            connect and STOPPING=1 as it stops.

            Exit codes: 0 stopped by SIGINT or SIGTERM; 69 another process hosts it already, or the directory \
            or socket is unsafe or cannot be made; 78 the socket handed over cannot be served, or \
            NOTIFY_SOCKET or WATCHDOG_USEC cannot be used (one line says why).
            """
    )

    func run() throws {
        try reportingCoordinationFailures {
            let notifier = try Self.notifier()
            defer { notifier.close() }
            notifier.started()
            let announce: (URL) -> Void = { socket in
                StandardStreams.printError("hosting the shared arbiter at \(socket.path) (pid \(getpid()))")
                notifier.listening()
            }
            if let handedOver = try Self.handedOverListener() {
                try CoordinationService.hostInForeground(listeningOn: handedOver, onReady: announce)
            } else {
                try CoordinationService.hostInForeground(onReady: announce)
            }
            notifier.stopping()
        }
    }

    /// The notifier to systemd's `NOTIFY_SOCKET` (none set: it sends nothing); a `NOTIFY_SOCKET` or
    /// `WATCHDOG_USEC` that cannot be used is exit code 78.
    private static func notifier() throws -> SupervisorNotifier {
        let supervisor: SupervisorEnvironment
        do {
            supervisor = try SupervisorEnvironment(ProcessInfo.processInfo.environment, processID: getpid())
        } catch {
            throw CommandFailure("\(error)", exitCode: CommandFailure.configuration)
        }
        do {
            return try SupervisorNotifier(
                environment: supervisor, logger: Logger(label: "quire.coordinator"), reload: {})
        } catch {
            throw CommandFailure("cannot make the socket to NOTIFY_SOCKET: \(error)", exitCode: CommandFailure.software)
        }
    }

    /// The listening Unix socket systemd handed over, checked (a stream socket that listens, bound to the path
    /// clients connect to) and close-on-exec; nil when none was. Exit code 78 otherwise.
    private static func handedOverListener() throws -> Int32? {
        let listener: InheritedListener
        do {
            guard let activation = try SocketActivation.fromEnvironment(processID: getpid()) else { return nil }
            listener = try InheritedListener.adopt(try activation.single(), family: .unix)
        } catch {
            throw CommandFailure("\(error)", exitCode: CommandFailure.configuration)
        }
        let expected = try CoordinationService.arbiterSocketPath()
        guard let path = listener.path, Self.samePath(path, expected) else {
            throw CommandFailure(
                "LISTEN_FDS=1 cannot be used: descriptor \(listener.descriptor) is bound to "
                    + "\(listener.path.map { $0.isEmpty ? "no path" : $0 } ?? "no path"), but clients connect to "
                    + "\(expected) (QUIRE_COORDINATION_DIR, else $XDG_RUNTIME_DIR/quire); make ListenStream= that path",
                exitCode: CommandFailure.configuration)
        }
        return listener.descriptor
    }

    /// Whether two socket paths name the same place (their directories with symbolic links resolved).
    private static func samePath(_ first: String, _ second: String) -> Bool {
        if first == second { return true }
        func resolved(_ path: String) -> String {
            let url = URL(fileURLWithPath: path)
            let directory = url.deletingLastPathComponent().resolvingSymlinksInPath()
            return directory.appendingPathComponent(url.lastPathComponent).standardizedFileURL.path
        }
        return !first.hasPrefix("@") && resolved(first) == resolved(second)
    }
}
