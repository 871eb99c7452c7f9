import Logging
import QuireTestSupport
import Supervision
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The supervisor notifier over a real datagram socket")
struct SupervisorNotifierTests {
    private func notifier(
        _ receiver: NotifyReceiver, watchdogMicroseconds: Int? = nil, reload: @escaping @Sendable () async -> Void = {}
    ) throws -> SupervisorNotifier {
        var variables = ["NOTIFY_SOCKET": receiver.address]
        if let watchdogMicroseconds { variables["WATCHDOG_USEC"] = String(watchdogMicroseconds) }
        let environment = try SupervisorEnvironment(variables, processID: getpid())
        return try SupervisorNotifier(environment: environment, logger: Logger(label: "test"), reload: reload)
    }

    @Test("READY=1, STATUS= and STOPPING=1 reach a socket file and an abstract address")
    func datagramsArrive() throws {
        let directory = String(cString: mkdtemp(strdup("/tmp/quire-notify-XXXXXX")))
        defer { rmdir(directory) }
        for receiver in [try NotifyReceiver(path: directory + "/notify"), try NotifyReceiver(path: nil)] {
            let notifier = try notifier(receiver)
            notifier.statusChanged("3 documents open")
            notifier.listening()
            #expect(receiver.receive(timeout: .seconds(5))?.text == "READY=1\nSTATUS=3 documents open")
            notifier.statusChanged("4 documents open")
            #expect(receiver.receive(timeout: .seconds(5))?.text == "STATUS=4 documents open")
            notifier.stopping()
            #expect(receiver.receive(timeout: .seconds(5))?.text == "STOPPING=1\nSTATUS=stopping")
            notifier.close()
        }
    }

    @Test("a reload sends RELOADING=1 with the monotonic time, runs, then READY=1")
    func reloadRoundTrip() throws {
        let receiver = try NotifyReceiver(path: nil)
        let reloads = Atomic(0)
        let notifier = try notifier(receiver) { reloads.add(1, ordering: .relaxed) }
        notifier.listening()
        _ = receiver.receive(timeout: .seconds(5))
        let before = NotifyReceiver.monotonicMicroseconds()
        notifier.reloadRequested()
        let reloading = try #require(receiver.receive(timeout: .seconds(5))).text
        let lines = reloading.split(separator: "\n")
        #expect(lines.first == "RELOADING=1")
        let stamp = try #require(lines.first { $0.hasPrefix("MONOTONIC_USEC=") }.flatMap { UInt64($0.dropFirst(15)) })
        #expect(stamp >= before && stamp <= NotifyReceiver.monotonicMicroseconds())
        #expect(receiver.receive(timeout: .seconds(5))?.text == "READY=1")
        #expect(reloads.load(ordering: .relaxed) == 1)
        notifier.close()
    }

    @Test("watchdog pings come at half the interval (counted over a bounded window), and stop at close")
    func watchdogPings() throws {
        let receiver = try NotifyReceiver(path: nil)
        // WATCHDOG_USEC 400 ms: a ping every 200 ms.
        let notifier = try notifier(receiver, watchdogMicroseconds: 400_000)
        notifier.started()
        var times: [UInt64] = []
        while times.count < 6, let ping = receiver.receive(timeout: .seconds(5)) {
            #expect(ping.text == "WATCHDOG=1")
            times.append(ping.at)
        }
        notifier.close()
        #expect(times.count == 6)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        // Each gap is the 200 ms sleep plus scheduling: never under it, and under the supervisor's 400 ms.
        #expect(gaps.allSatisfy { $0 >= 190_000 && $0 < 400_000 }, "gaps µs: \(gaps)")
        // After close, at most one ping already in flight.
        var late = 0
        while receiver.receive(timeout: .milliseconds(500)) != nil { late += 1 }
        #expect(late <= 1)
    }
}
