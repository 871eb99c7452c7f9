import ArgumentParser
import FileCoordination
import QuireCommandLine

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
            clients can connect.

            Exit codes: 0 stopped by SIGINT or SIGTERM; 69 another process hosts it already, or the directory \
            or socket is unsafe or cannot be made.
            """
    )

    func run() throws {
        try reportingCoordinationFailures {
            try CoordinationService.hostInForeground { socket in
                StandardStreams.printError("hosting the shared arbiter at \(socket.path) (pid \(getpid()))")
            }
        }
    }
}
