import QuireSystem
import CQuireLinux
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Runs a command as a child process with this process's standard streams, as `flock(1)` and shells do.
///
/// The child starts through `posix_spawnp(3)` (the command is looked up in `PATH`) with an empty signal mask and
/// every signal at its default disposition, whatever Foundation's or Dispatch's threads had blocked or ignored.
/// While it runs, this process ignores SIGINT and SIGQUIT (the terminal sends them to the child too, as
/// `system(3)` does) and passes SIGTERM and SIGHUP on to the child.
public enum ChildProcess {
    /// How a child ended, as a shell reports it.
    public enum Termination: Equatable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal killed it.
        case signalled(Int32)

        /// The shell's exit status: the status, or 128 plus the signal number.
        public var shellStatus: Int32 {
            switch self {
            case .exited(let status): status
            case .signalled(let signal): 128 + signal
            }
        }
    }

    /// Why a command could not start.
    public enum LaunchError: Error, Sendable {
        /// No such command (a shell exits with 127).
        case notFound(String)
        /// The command exists but cannot be executed (a shell exits with 126); the reason is `strerror`'s.
        case notExecutable(String, reason: String)
        /// `posix_spawn` failed for another reason (no memory, too many processes).
        case spawnFailed(String, SystemCallError)
    }

    /// Runs `command` (`command[0]` looked up in `PATH`) and waits for it to end.
    public static func run(_ command: [String]) throws -> Termination {
        precondition(!command.isEmpty, "ChildProcess.run needs a command")
        TerminationSignals.unblock()
        let previous = SignalForwarding.install()
        defer { SignalForwarding.restore(previous) }
        let pid = try spawn(command)
        SignalForwarding.child.store(pid, ordering: .sequentiallyConsistent)
        defer { SignalForwarding.child.store(0, ordering: .sequentiallyConsistent) }
        return try wait(for: pid, command: command[0])
    }

    private static func spawn(_ command: [String]) throws(LaunchError) -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        CQuire_spawnResetSignals(&attributes)

        var arguments = command.map { strdup($0) }
        arguments.append(nil)
        defer { for argument in arguments { free(argument) } }
        var pid = pid_t()
        let result = SystemCall.retryingReturnedInterrupt {
            posix_spawnp(&pid, command[0], nil, &attributes, arguments, environ)
        }
        switch result {
        case 0: return pid
        case ENOENT, ENOTDIR: throw .notFound(command[0])
        case EACCES, ENOEXEC, EPERM, EISDIR, ELOOP, ENAMETOOLONG:
            throw .notExecutable(command[0], reason: String(cString: strerror(result)))
        default: throw .spawnFailed(command[0], SystemCallError(call: "posix_spawnp", errno: result, path: command[0]))
        }
    }

    private static func wait(for pid: pid_t, command: String) throws -> Termination {
        var status: Int32 = 0
        try SystemCall.retryingOnInterrupt("waitpid", path: command) { waitpid(pid, &status, 0) }
        // The <sys/wait.h> macros, which Swift does not import.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}

/// What this process does with signals while a child runs.
enum SignalForwarding {
    /// The running child's pid, 0 when none: read by the signal handler.
    static let child = Atomic<pid_t>(0)

    /// Ignores SIGINT and SIGQUIT, forwards SIGTERM and SIGHUP; returns the previous dispositions.
    static func install() -> [(Int32, sigaction)] {
        var previous: [(Int32, sigaction)] = []
        for (signal, forwards) in [(SIGINT, false), (SIGQUIT, false), (SIGTERM, true), (SIGHUP, true)] {
            var action = sigaction()
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            if forwards {
                action.__sigaction_handler.sa_handler = { signal in
                    let pid = SignalForwarding.child.load(ordering: .sequentiallyConsistent)
                    if pid > 0 { kill(pid, signal) }
                }
            } else {
                action.__sigaction_handler.sa_handler = SIG_IGN
            }
            var old = sigaction()
            sigaction(signal, &action, &old)
            previous.append((signal, old))
        }
        return previous
    }

    /// Puts back the dispositions ``install()`` returned.
    static func restore(_ previous: [(Int32, sigaction)]) {
        for (signal, old) in previous {
            var old = old
            sigaction(signal, &old, nil)
        }
    }
}

/// SIGINT, SIGTERM and SIGHUP, the signals that ask a command to stop.
public enum TerminationSignals {
    /// Unblocks them on the calling thread: a process started with them blocked (some supervisors and test
    /// runners start children so) would otherwise never see them, and threads made later inherit the mask.
    public static func unblock() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, signal) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
