import CQuireLinux
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `quire` started the way systemd starts a socket-activated service: the given sockets as descriptors 3, 4, …
/// (no other descriptor of the test process), `LISTEN_FDS` counting them, and `LISTEN_PID` set to the child's own
/// pid by a shell that then replaces itself with `quire` (which keeps the pid), unless the test sets it. Standard
/// output and error go to files, read with bounded waits.
final class ActivatedProcess {
    /// The child's pid.
    let pid: pid_t
    private let outputPath: String
    private let errorPath: String
    private var status: Int32?

    /// Starts `quire arguments…` with `sockets` handed over and `environment` added to this process's.
    init(_ arguments: [String], handing sockets: [Int32], environment extra: [String: String], logs: URL) throws {
        let outputPath = logs.appendingPathComponent("stdout-\(UUID().uuidString)").path
        let errorPath = logs.appendingPathComponent("stderr-\(UUID().uuidString)").path
        self.outputPath = outputPath
        self.errorPath = errorPath
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LISTEN_") }
        environment["COLUMNS"] = "100"
        environment["LISTEN_FDS"] = String(sockets.count)
        environment.merge(extra) { $1 }
        // The shell's $$ is the pid quire keeps once the shell execs it; a LISTEN_PID from the test wins.
        let script =
            environment["LISTEN_PID"] == nil ? "LISTEN_PID=$$ exec \"$0\" \"$@\"" : "exec \"$0\" \"$@\""
        let argv = ["/bin/sh", "-c", script, QuireProcess.executable.path] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Each socket first to a descriptor above the targets (so that no dup2 overwrites one not moved yet).
        let high = try sockets.map { socket in
            let copy = fcntl(socket, F_DUPFD_CLOEXEC, 64)
            guard copy >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EBADF) }
            return copy
        }
        defer { high.forEach { close($0) } }
        for (index, copy) in high.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, copy, 3 + Int32(index))
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = CQuire_spawnCloseFrom(&actions, 3 + Int32(sockets.count))
        var child: pid_t = 0
        let variables = environment.map { "\($0.key)=\($0.value)" }
        let result = Self.withCStrings(argv) { argvPointer in
            Self.withCStrings(variables) { envp in posix_spawn(&child, "/bin/sh", &actions, nil, argvPointer, envp) }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        pid = child
    }

    deinit { kill() }

    /// Standard output so far.
    var standardOutput: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    /// Standard error so far.
    var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits (at most `timeout`) until standard output (or error) contains `text`; false if the process exits
    /// first.
    func waitFor(_ text: String, inStandardError: Bool = false, timeout: Duration = .seconds(60)) -> Bool {
        let end = ContinuousClock.now + timeout
        func printed() -> Bool { (inStandardError ? standardError : standardOutput).contains(text) }
        while ContinuousClock.now < end {
            if printed() { return true }
            if reap(block: false) != nil { return printed() }
            usleep(20_000)
        }
        return false
    }

    /// Waits (at most `timeout`) for the exit status (128 + the signal for a killed process); nil if it still runs.
    func waitForExit(timeout: Duration = .seconds(30)) -> Int32? {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if let status = reap(block: false) { return status }
            usleep(20_000)
        }
        return nil
    }

    /// Sends `signal`.
    func send(_ signal: Int32) { Glibc.kill(pid, signal) }

    /// Kills the process if it still runs and reaps it.
    func kill() {
        guard reap(block: false) == nil else { return }
        Glibc.kill(pid, SIGKILL)
        _ = reap(block: true)
    }

    /// The exit status once the child exited (reaped once, then remembered).
    private func reap(block: Bool) -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, block ? 0 : WNOHANG) == pid else { return nil }
        let signal = raw & 0x7f
        status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        return status
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R)
        -> R
    {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
