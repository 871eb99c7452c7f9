import Foundation
import QuireTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `quire serve` under a supervisor, as systemd runs it: a real `NOTIFY_SOCKET` datagram socket in the test, a
/// real child process, signals, and standard error read as the journal would.
@Suite("quire serve under a supervisor")
struct SupervisedServeTests {
    /// A port that was free a moment ago (bound to 0 and released).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        return try bindToLoopback(descriptor)
    }

    /// Binds the AF_INET socket `descriptor` to 127.0.0.1 on a port the kernel picks, and returns that port.
    static func bindToLoopback(_ descriptor: Int32) throws -> Int {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private func serve(
        _ sandbox: CoordinationSandbox, port: Int, receiver: NotifyReceiver?, arguments: [String] = [],
        environment: [String: String] = [:]
    ) throws -> RunningQuire {
        var variables = sandbox.environment.merging(environment) { $1 }
        if let receiver { variables["NOTIFY_SOCKET"] = receiver.address }
        return try RunningQuire(
            [
                "serve", "--port", String(port), "--store", sandbox.root.appendingPathComponent("store").path,
                "--root", sandbox.files.path,
            ] + arguments, environment: variables)
    }

    /// The lines of the datagrams.
    private func lines(_ datagrams: [(text: String, at: UInt64)]) -> [Substring] {
        datagrams.flatMap { $0.text.split(separator: "\n") }
    }

    @Test("READY=1 comes once the port accepts, with a STATUS= line; SIGTERM sends STOPPING=1 and exits 0")
    func readyWhenAcceptingAndStoppingOnTerm() throws {
        let sandbox = try CoordinationSandbox()
        let receiver = try NotifyReceiver(path: sandbox.root.appendingPathComponent("notify").path)
        let port = try Self.freePort()
        let service = try serve(sandbox, port: port, receiver: receiver)
        defer { service.kill() }
        let untilReady = try #require(
            receiver.receive(untilLine: "READY=1", timeout: .seconds(60)), "\(service.standardError)")
        // The very moment READY=1 is read, a connection is accepted: no retry, no wait.
        let connection = ConnectionFloodTests.connect(port: port, timeout: 1)
        #expect(connection != nil, "READY=1 came before port \(port) accepted")
        if let connection { close(connection) }
        #expect(untilReady.count == 1, "datagrams before READY=1: \(untilReady.map(\.text))")
        let status = lines(untilReady).first { $0.hasPrefix("STATUS=") }
        #expect(status?.hasPrefix("STATUS=0 documents open, 0 in conflict, PDF workers 0/") == true, "\(untilReady)")
        kill(service.pid, SIGTERM)
        let untilStopping = receiver.receive(untilLine: "STOPPING=1", timeout: .seconds(30))
        #expect(untilStopping != nil)
        #expect(service.waitForExit(timeout: 30) == 0, "\(service.standardError)")
    }

    @Test("watchdog pings come at half WATCHDOG_USEC, counted over a bounded window; none for another WATCHDOG_PID")
    func watchdogPings() throws {
        let sandbox = try CoordinationSandbox()
        let receiver = try NotifyReceiver(path: nil)
        let service = try serve(
            sandbox, port: try Self.freePort(), receiver: receiver, environment: ["WATCHDOG_USEC": "1000000"])
        defer { service.kill() }
        _ = try #require(receiver.receive(untilLine: "READY=1", timeout: .seconds(60)), "\(service.standardError)")
        // A 3.25 s window: pings every 500 ms give 6 (or 7 at its edges).
        var pings: [UInt64] = []
        let end = ContinuousClock.now + .milliseconds(3_250)
        while ContinuousClock.now < end, let datagram = receiver.receive(timeout: end - ContinuousClock.now) {
            if datagram.text == "WATCHDOG=1" { pings.append(datagram.at) }
        }
        #expect((6...7).contains(pings.count), "pings: \(pings.count)")
        let gaps = zip(pings.dropFirst(), pings).map { ($0 - $1) / 1_000 }
        #expect(gaps.allSatisfy { $0 >= 480 && $0 < 1_000 }, "gaps in ms: \(gaps)")
        service.terminate()
        #expect(service.waitForExit(timeout: 30) == 0)

        // WATCHDOG_PID names another process: its watchdog, not this one's.
        let otherSandbox = try CoordinationSandbox()
        let other = try serve(
            otherSandbox, port: try Self.freePort(), receiver: receiver,
            environment: ["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"])
        defer { other.kill() }
        _ = try #require(receiver.receive(untilLine: "READY=1", timeout: .seconds(60)), "\(other.standardError)")
        #expect(receiver.receive(untilLine: "WATCHDOG=1", timeout: .milliseconds(1_000)) == nil)
        other.terminate()
        #expect(other.waitForExit(timeout: 30) == 0)
    }

    /// The status code of `POST /documents` with a body of `length` bytes (and `token`), or nil.
    static func postStatus(port: Int, token: String?, length: Int) -> Int? {
        guard let descriptor = ConnectionFloodTests.connect(port: port, timeout: 5) else { return nil }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = "POST /documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/pdf\r\n"
        head += "Content-Length: \(length)\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        let request = Array((head + "\r\n").utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: length)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer = [UInt8](repeating: 0, count: 64)
        let count = recv(descriptor, &answer, answer.count, 0)
        guard count > 12 else { return nil }
        return Int(String(decoding: answer[9..<12], as: UTF8.self))
    }

    @Test("SIGHUP: RELOADING=1 then READY=1; the token and upload limit change at once, the rest is named; a broken file keeps the old configuration and says why in one line")
    func reloadOnHangup() throws {
        let sandbox = try CoordinationSandbox()
        let receiver = try NotifyReceiver(path: nil)
        let config = sandbox.root.appendingPathComponent("quire.json")
        try Data(#"{"token": "first-token", "maxUploadBytes": 1000, "maxDPI": 300}"#.utf8).write(to: config)
        let port = try Self.freePort()
        let service = try serve(sandbox, port: port, receiver: receiver, arguments: ["--config", config.path])
        defer { service.kill() }
        _ = try #require(receiver.receive(untilLine: "READY=1", timeout: .seconds(60)), "\(service.standardError)")
        #expect(Self.postStatus(port: port, token: nil, length: 1_500) == 401)
        #expect(Self.postStatus(port: port, token: "first-token", length: 1_500) == 413)

        try Data(#"{"token": "second-token", "maxUploadBytes": 2000, "maxDPI": 200}"#.utf8).write(to: config)
        let before = NotifyReceiver.monotonicMicroseconds()
        kill(service.pid, SIGHUP)
        let reload = try #require(receiver.receive(untilLine: "READY=1", timeout: .seconds(30)))
        let reloadLines = lines(reload)
        #expect(reloadLines.first == "RELOADING=1", "\(reloadLines)")
        let stamp = reloadLines.first { $0.hasPrefix("MONOTONIC_USEC=") }.flatMap { UInt64($0.dropFirst(15)) }
        #expect(stamp.map { $0 >= before && $0 <= NotifyReceiver.monotonicMicroseconds() } == true, "\(reloadLines)")
        #expect(
            service.waitFor(
                "configuration reloaded: applied maxUploadBytes, token; maxDPI needs a restart to change",
                inStandardError: true, timeout: 10), "\(service.standardError)")
        #expect(Self.postStatus(port: port, token: "first-token", length: 1_500) == 401)
        let accepted = Self.postStatus(port: port, token: "second-token", length: 1_500)
        #expect(accepted != nil && accepted != 401 && accepted != 413, "\(String(describing: accepted))")

        for (broken, reason) in [
            ("{ \"token\": ", "invalid configuration: cannot use \(config.path)"),
            (#"{"token": "third-token", "maxUploadBytes": -1}"#, "invalid configuration: maxUploadBytes = -1 from"),
        ] {
            try Data(broken.utf8).write(to: config)
            kill(service.pid, SIGHUP)
            let again = try #require(receiver.receive(untilLine: "READY=1", timeout: .seconds(30)))
            #expect(lines(again).first == "RELOADING=1")
            let refusal = "configuration not reloaded, the running one stays: \(reason)"
            #expect(service.waitFor(refusal, inStandardError: true, timeout: 10), "\(service.standardError)")
            let refusalLines = service.standardError.split(separator: "\n").filter { $0.contains(refusal) }
            #expect(refusalLines.count == 1, "\(refusalLines)")
            #expect(Self.postStatus(port: port, token: "first-token", length: 10) == 401)
            let stillAccepted = Self.postStatus(port: port, token: "second-token", length: 1_500)
            #expect(stillAccepted != nil && stillAccepted != 401 && stillAccepted != 413)
        }
        service.terminate()
        #expect(service.waitForExit(timeout: 30) == 0)
    }

    @Test("with JOURNAL_STREAM naming standard error: a <N> priority prefix on every line and no timestamp; --log-format json: one JSON object per line")
    func journalAndJSONLogs() throws {
        let pattern = /^<[0-7]>(trace|debug|info|notice|warning|error|critical) [a-z.]+:.*/
        for (environment, arguments, expectJournal) in [
            (["QUIRE_TEST_JOURNAL_STREAM": "1"], [String](), true),
            (["JOURNAL_STREAM": "1:1"], [], false),  // names another stream: not the journal
        ] {
            let sandbox = try CoordinationSandbox()
            let port = try Self.freePort()
            let service = try serve(sandbox, port: port, receiver: nil, arguments: arguments, environment: environment)
            defer { service.kill() }
            #expect(service.waitFor("quire serve: listening on", timeout: 60), "\(service.standardError)")
            _ = Self.postStatus(port: port, token: nil, length: 10)
            service.terminate()
            #expect(service.waitForExit(timeout: 30) == 0)
            let lines = service.standardError.split(separator: "\n")
            #expect(lines.count >= 2, "\(service.standardError)")
            for line in lines {
                let matches = (try? pattern.wholeMatch(in: line)) != nil
                #expect(matches == expectJournal, "\(line)")
            }
        }
        let sandbox = try CoordinationSandbox()
        let port = try Self.freePort()
        let service = try serve(sandbox, port: port, receiver: nil, arguments: ["--log-format", "json"])
        defer { service.kill() }
        #expect(service.waitFor("quire serve: listening on", timeout: 60), "\(service.standardError)")
        _ = Self.postStatus(port: port, token: nil, length: 10)
        service.terminate()
        #expect(service.waitForExit(timeout: 30) == 0)
        let lines = service.standardError.split(separator: "\n")
        #expect(lines.count >= 2, "\(service.standardError)")
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["level"] is String && object?["message"] is String && object?["time"] is String, "\(line)")
        }
    }
}
