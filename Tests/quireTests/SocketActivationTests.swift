import Foundation
import QuireTestSupport
import StoreClient
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `quire serve` socket-activated as systemd does it: a listening socket the test made, handed over as
/// descriptor 3 with `LISTEN_FDS` and `LISTEN_PID` (the child's own pid), served instead of `--port`; and every
/// handing over that cannot be served refused with exit code 78 and one line.
@Suite("quire serve with a socket handed over")
struct SocketActivationTests {
    /// A socket of `type` in `family` (close-on-exec: only the hand-over passes it on), bound to loopback port 0
    /// (or the path `path` for AF_UNIX), listening when `listening`; with its port.
    static func makeSocket(
        family: Int32 = AF_INET, type: Int32 = Int32(SOCK_STREAM.rawValue), listening: Bool = true,
        path: String? = nil
    ) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(family, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(descriptor >= 0)
        var port = 0
        if family == AF_INET {
            port = try SupervisedServeTests.bindToLoopback(descriptor)
        } else if let path {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
                }
            }
            try #require(bound)
        }
        if listening { try #require(listen(descriptor, 64) == 0) }
        return (descriptor, port)
    }

    /// The status line of `GET path` on `port` (one connection, `Connection: close`), or nil.
    static func get(_ path: String, port: Int) -> String? {
        guard let descriptor = ConnectionFloodTests.connect(port: port, timeout: 5) else { return nil }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer = [UInt8](repeating: 0, count: 256)
        let count = recv(descriptor, &answer, answer.count, 0)
        guard count > 0 else { return nil }
        return String(decoding: answer[0..<count], as: UTF8.self).split(separator: "\r\n").first.map(String.init)
    }

    /// The status line of `POST /documents` with the PDF at `path` on `port`, or nil.
    static func post(_ path: String, port: Int) -> String? {
        guard let body = FileManager.default.contents(atPath: path),
            let descriptor = ConnectionFloodTests.connect(port: port, timeout: 5)
        else { return nil }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let head =
            "POST /documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/pdf\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let request = Array(head.utf8) + Array(body)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer = [UInt8](repeating: 0, count: 256)
        let count = recv(descriptor, &answer, answer.count, 0)
        guard count > 0 else { return nil }
        return String(decoding: answer[0..<count], as: UTF8.self).split(separator: "\r\n").first.map(String.init)
    }

    /// The child processes of `pid` (`/proc/PID/task/*/children`).
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    /// `quire serve` in `sandbox` with `sockets` handed over, asked for `port` (which it must not bind).
    private func serve(
        _ sandbox: CoordinationSandbox, handing sockets: [Int32], port: Int, environment: [String: String] = [:]
    ) throws -> ActivatedProcess {
        try ActivatedProcess(
            [
                "serve", "--port", String(port), "--store", sandbox.root.appendingPathComponent("store").path,
                "--root", sandbox.files.path,
            ], handing: sockets, environment: sandbox.environment.merging(environment) { $1 }, logs: sandbox.root)
    }

    @Test("the socket handed over as descriptor 3 is served (GET /health), close-on-exec, instead of --port; READY=1 once it accepts; SIGTERM stops it with exit 0")
    func servesHandedSocket() throws {
        let sandbox = try CoordinationSandbox()
        let receiver = try NotifyReceiver(path: nil)
        let (listener, port) = try Self.makeSocket()
        defer { close(listener) }
        let otherPort = try SupervisedServeTests.freePort()
        let service = try serve(
            sandbox, handing: [listener], port: otherPort,
            environment: ["LISTEN_FDNAMES": "quire", "NOTIFY_SOCKET": receiver.address])
        defer { service.kill() }
        #expect(
            service.waitFor("quire serve: listening on http://127.0.0.1:\(port)\n"),
            "\(service.standardOutput)\n\(service.standardError)")
        let untilReady = receiver.receive(untilLine: "READY=1", timeout: .seconds(30))
        #expect(untilReady != nil, "\(service.standardError)")
        #expect(Self.get("/health", port: port) == "HTTP/1.1 200 OK", "\(service.standardError)")
        // The fast path's and the router's answers on the same socket.
        #expect(Self.get("/documents/unknown", port: port)?.hasPrefix("HTTP/1.1 4") == true)
        // An upload starts a PDF worker: it inherits none of the variables.
        let upload = Self.post(QuireProcess.fixture("one-page.pdf"), port: port)
        #expect(upload == "HTTP/1.1 201 Created", "\(service.standardError)")
        let workers = Self.children(of: service.pid)
        #expect(!workers.isEmpty)
        for worker in workers {
            let environment = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(worker)/environ"))) ?? Data()
            let names = environment.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            #expect(!names.isEmpty && !names.contains { $0.hasPrefix("LISTEN_") }, "worker \(worker): \(names)")
        }
        // --port was not bound: nothing listens there.
        #expect(ConnectionFloodTests.connect(port: otherPort, timeout: 1) == nil)
        // Descriptor 3 is close-on-exec in the service (fdinfo's flags carry O_CLOEXEC, 02000000 octal).
        let fdinfo = try String(contentsOfFile: "/proc/\(service.pid)/fdinfo/3", encoding: .utf8)
        let flags = fdinfo.split(separator: "\n").first { $0.hasPrefix("flags:") }
            .flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) }
        #expect(flags.map { $0 & 0o2000000 != 0 } == true, "\(fdinfo)")
        // A kept-alive connection, idle after its answer, is closed by the graceful stop (as with a bound port),
        // long before the 60 s idle timeout would close it.
        let idle = try #require(ConnectionFloodTests.connect(port: port, timeout: 5))
        defer { close(idle) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(idle, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(idle, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer = [UInt8](repeating: 0, count: 4_096)
        #expect(recv(idle, &answer, answer.count, 0) > 0)
        let stopped = ContinuousClock.now
        service.send(SIGTERM)
        #expect(receiver.receive(untilLine: "STOPPING=1", timeout: .seconds(30)) != nil)
        #expect(recv(idle, &answer, answer.count, 0) == 0, "the idle connection was not closed")
        #expect(service.waitForExit() == 0, "\(service.standardError)")
        #expect(ContinuousClock.now - stopped < .seconds(15))
        // The socket is still the test's (systemd's copy, as it were): a connection waits in its backlog.
        let waiting = ConnectionFloodTests.connect(port: port, timeout: 1)
        #expect(waiting != nil)
        if let waiting { close(waiting) }
    }

    @Test("a cluster node (PostgreSQL) serves the socket handed over and gives the cluster that socket's address")
    func clusterNodeServesHandedSocket() async throws {
        let server = try PostgresServer.shared()
        let database = server.url(database: try await server.createDatabase())
        let sandbox = try CoordinationSandbox()
        let (listener, port) = try Self.makeSocket()
        defer { close(listener) }
        let otherPort = try SupervisedServeTests.freePort()
        let node = try ActivatedProcess(
            [
                "serve", "--database", database, "--port", String(otherPort), "--store",
                sandbox.root.appendingPathComponent("store").path, "--root", sandbox.files.path,
            ], handing: [listener], environment: sandbox.environment, logs: sandbox.root)
        defer { node.kill() }
        #expect(
            node.waitFor("quire serve: listening on http://127.0.0.1:\(port)\n"),
            "\(node.standardOutput)\n\(node.standardError)")
        #expect(Self.get("/health", port: port) == "HTTP/1.1 200 OK", "\(node.standardError)")
        #expect(Self.post(QuireProcess.fixture("one-page.pdf"), port: port) == "HTTP/1.1 201 Created")
        // The other nodes forward to the address in the node table: the handed-over socket's, not --port's.
        let client = try StoreClient(server: "http://127.0.0.1:\(port)")
        let listed = try await eventually("the node listed with the handed-over socket's address") {
            let listed = try await client.nodes()
            return listed.nodes.first?.address == "127.0.0.1:\(port)" ? listed : nil
        }
        #expect(listed.cluster)
        #expect(ConnectionFloodTests.connect(port: otherPort, timeout: 1) == nil)
        try await client.shutdown()
        node.send(SIGTERM)
        #expect(node.waitForExit() == 0, "\(node.standardError)")
    }

    /// A handing over that cannot be served, and what the line must say.
    struct Refusal: CustomTestStringConvertible, Sendable {
        let name: String
        let sockets: @Sendable (URL) throws -> [Int32]
        let environment: [String: String]
        let line: String
        var testDescription: String { name }
    }

    /// A socket as ``makeSocket(family:type:listening:path:)`` makes it, its descriptor only.
    static func socketOnly(
        family: Int32 = AF_INET, type: Int32 = Int32(SOCK_STREAM.rawValue), listening: Bool = true, path: String? = nil
    ) throws -> Int32 {
        try makeSocket(family: family, type: type, listening: listening, path: path).descriptor
    }

    static let refusals: [Refusal] = [
        Refusal(
            name: "LISTEN_PID names another process", sockets: { _ in [try socketOnly()] },
            environment: ["LISTEN_PID": "1"],
            line: "LISTEN_PID=1 cannot be used: the sockets are meant for process 1, not for this one"),
        Refusal(
            name: "two sockets", sockets: { _ in [try socketOnly(), try socketOnly()] },
            environment: [:], line: "LISTEN_FDS=2 cannot be used: this service listens on one socket"),
        Refusal(
            name: "a socket that does not listen", sockets: { _ in [try socketOnly(listening: false)] },
            environment: [:], line: "LISTEN_FDS=1 cannot be used: descriptor 3 is not listening"),
        Refusal(
            name: "a UDP socket",
            sockets: { _ in [try socketOnly(type: Int32(SOCK_DGRAM.rawValue), listening: false)] },
            environment: [:],
            line: "LISTEN_FDS=1 cannot be used: descriptor 3 is a datagram (SOCK_DGRAM) socket, not a stream"),
        Refusal(
            name: "a Unix socket",
            sockets: { root in [try socketOnly(family: AF_UNIX, path: root.appendingPathComponent("s").path)] },
            environment: [:],
            line: "LISTEN_FDS=1 cannot be used: descriptor 3 is a Unix (AF_UNIX) socket, not an internet"),
        Refusal(
            name: "not a socket", sockets: { _ in [open("/dev/null", O_RDONLY | O_CLOEXEC)] }, environment: [:],
            line: "LISTEN_FDS=1 cannot be used: descriptor 3 is not a socket"),
    ]

    @Test("a socket that cannot be served is refused: exit 78 and one line naming the variable", arguments: refusals)
    func refuses(_ refusal: Refusal) throws {
        let sandbox = try CoordinationSandbox()
        let sockets = try refusal.sockets(sandbox.root)
        defer { sockets.forEach { close($0) } }
        let service = try serve(
            sandbox, handing: sockets, port: try SupervisedServeTests.freePort(), environment: refusal.environment)
        defer { service.kill() }
        #expect(service.waitForExit() == 78, "\(service.standardError)")
        let lines = service.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(service.standardError)")
        #expect(lines.first?.hasPrefix("quire: error: \(refusal.line)") == true, "\(service.standardError)")
    }
}
