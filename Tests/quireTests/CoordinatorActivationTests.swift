import Foundation
import QuireTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `quire coordinator` socket-activated as systemd's quire-coordinator.socket does it: a listening Unix socket
/// the test made at the coordination directory's `arbiter.sock`, handed over as descriptor 3; coordinating
/// clients (other `quire` processes) go through it.
@Suite("quire coordinator with a socket handed over")
struct CoordinatorActivationTests {
    /// The coordination directory of `sandbox`.
    private func directory(_ sandbox: CoordinationSandbox) -> String {
        sandbox.environment["QUIRE_COORDINATION_DIR"]!
    }

    /// A listening Unix stream socket at `path`, mode 0600 (as SocketMode=0600 makes it).
    private func listeningSocket(at path: String) throws -> Int32 {
        let descriptor = try SocketActivationTests.makeSocket(family: AF_UNIX, path: path).descriptor
        try #require(chmod(path, 0o600) == 0)
        return descriptor
    }

    /// The inode of `path`.
    private func inode(_ path: String) -> UInt64? {
        var status = stat()
        return stat(path, &status) == 0 ? UInt64(status.st_ino) : nil
    }

    private func coordinator(
        _ sandbox: CoordinationSandbox, handing sockets: [Int32], notify receiver: NotifyReceiver? = nil
    ) throws -> ActivatedProcess {
        var environment = sandbox.environment
        if let receiver { environment["NOTIFY_SOCKET"] = receiver.address }
        return try ActivatedProcess(["coordinator"], handing: sockets, environment: environment, logs: sandbox.root)
    }

    @Test("clients reach the arbiter through the socket handed over, even one that connected before the host started; the host holds the lock, leaves the socket in place when it stops, and sends READY=1 and STOPPING=1")
    func clientsThroughHandedSocket() throws {
        let sandbox = try CoordinationSandbox()
        let socketPath = directory(sandbox) + "/arbiter.sock"
        let listener = try listeningSocket(at: socketPath)
        defer { close(listener) }
        let socketInode = inode(socketPath)
        let file = try sandbox.make("note.txt", "old\n")
        // A client first, as systemd's socket sees it: its connection waits in the backlog until a host accepts.
        let early = try RunningQuire(["read", file], environment: sandbox.environment)
        defer { early.kill() }
        let receiver = try NotifyReceiver(path: nil)
        let host = try coordinator(sandbox, handing: [listener], notify: receiver)
        defer { host.kill() }
        // READY=1 (Type=notify) once clients can connect: after the line that says so.
        #expect(receiver.receive(untilLine: "READY=1", timeout: .seconds(30)) != nil, "\(host.standardError)")
        #expect(
            host.waitFor("hosting the shared arbiter at \(socketPath) (pid \(host.pid))", inStandardError: true),
            "\(host.standardError)")
        #expect(early.waitForExit(timeout: 30) == 0, "\(early.standardError)")
        #expect(early.standardOutput == "old\n")
        let write = try sandbox.quire(["write", file], input: Data("new\n".utf8))
        #expect(write.status == 0, "\(write.standardError)")
        let read = try sandbox.quire(["read", file])
        #expect(read.status == 0 && read.output == "new\n", "\(read.standardError)")
        // The host took the lock (no client hosted instead), and the socket is still the one handed over.
        let holder = try String(contentsOfFile: directory(sandbox) + "/arbiter.lock", encoding: .utf8)
        #expect(holder.trimmingCharacters(in: .whitespacesAndNewlines) == String(host.pid))
        #expect(inode(socketPath) == socketInode)
        // A second host handed the same socket finds the lock held: exit 69, as without activation.
        let second = try coordinator(sandbox, handing: [listener])
        defer { second.kill() }
        #expect(second.waitForExit() == 69, "\(second.standardError)")
        #expect(second.standardError.contains("is already hosted by pid \(host.pid)"), "\(second.standardError)")
        host.send(SIGTERM)
        #expect(receiver.receive(untilLine: "STOPPING=1", timeout: .seconds(30)) != nil)
        #expect(host.waitForExit() == 0, "\(host.standardError)")
        // The socket file stays (the supervisor's), and a connection waits in its backlog for the next host.
        #expect(inode(socketPath) == socketInode)
        let next = try RunningQuire(["read", file], environment: sandbox.environment)
        defer { next.kill() }
        let again = try coordinator(sandbox, handing: [listener])
        defer { again.kill() }
        #expect(next.waitForExit(timeout: 30) == 0, "\(next.standardError)")
        #expect(next.standardOutput == "new\n")
    }

    @Test("a socket bound elsewhere than the arbiter's path, or not a Unix socket, is refused: exit 78 and one line")
    func refusesOtherSockets() throws {
        let sandbox = try CoordinationSandbox()
        let elsewhere = sandbox.root.appendingPathComponent("elsewhere.sock").path
        let wrong = try listeningSocket(at: elsewhere)
        defer { close(wrong) }
        let host = try coordinator(sandbox, handing: [wrong])
        defer { host.kill() }
        #expect(host.waitForExit() == 78, "\(host.standardError)")
        let lines = host.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(host.standardError)")
        #expect(
            lines.first?.hasPrefix(
                "quire: error: LISTEN_FDS=1 cannot be used: descriptor 3 is bound to \(elsewhere), but clients "
                    + "connect to \(directory(sandbox))/arbiter.sock") == true, "\(host.standardError)")

        let (tcp, _) = try SocketActivationTests.makeSocket()
        defer { close(tcp) }
        let other = try coordinator(sandbox, handing: [tcp])
        defer { other.kill() }
        #expect(other.waitForExit() == 78, "\(other.standardError)")
        #expect(
            other.standardError.hasPrefix(
                "quire: error: LISTEN_FDS=1 cannot be used: descriptor 3 is an internet (AF_INET or AF_INET6) "
                    + "socket, not a Unix"), "\(other.standardError)")
    }
}
