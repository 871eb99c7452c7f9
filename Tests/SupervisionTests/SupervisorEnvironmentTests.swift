import Supervision
import Testing

@Suite("The supervisor's environment variables")
struct SupervisorEnvironmentTests {
    private func read(_ environment: [String: String], pid: Int32 = 42) throws(SupervisorEnvironment.Invalid)
        -> SupervisorEnvironment
    {
        try SupervisorEnvironment(environment, processID: pid)
    }

    @Test("NOTIFY_SOCKET is a path, or @name in the abstract namespace; unset means no supervisor")
    func notifyAddresses() throws {
        #expect(try read(["NOTIFY_SOCKET": "/run/systemd/notify"]).notifyAddress == .path("/run/systemd/notify"))
        let abstract = try read(["NOTIFY_SOCKET": "@quire/notify"]).notifyAddress
        #expect(abstract == .abstract("quire/notify"))
        #expect(abstract?.socketPathBytes == [0] + Array("quire/notify".utf8))
        #expect(try read([:]).notifyAddress == nil)
    }

    @Test("a NOTIFY_SOCKET that cannot be used is refused with the variable, the value and why")
    func badNotifyAddresses() {
        for value in ["relative/path", "", "@", "vsock:2:1234", "/" + String(repeating: "a", count: 107)] {
            #expect(throws: SupervisorEnvironment.Invalid.self, "\(value)") { try read(["NOTIFY_SOCKET": value]) }
        }
        // 107 bytes and the NUL fill sun_path exactly.
        #expect(throws: Never.self) { try read(["NOTIFY_SOCKET": "/" + String(repeating: "a", count: 106)]) }
        do {
            _ = try read(["NOTIFY_SOCKET": "vsock:2:1234"])
        } catch {
            #expect(error.description.hasPrefix("NOTIFY_SOCKET=vsock:2:1234 cannot be used: VSOCK"))
        }
    }

    @Test("WATCHDOG_USEC applies to this process when WATCHDOG_PID is unset or names it")
    func watchdog() throws {
        #expect(try read(["WATCHDOG_USEC": "3000000"]).watchdogInterval == .seconds(3))
        #expect(try read(["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "42"]).watchdogInterval == .seconds(3))
        #expect(try read(["WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "43"]).watchdogInterval == nil)
        #expect(try read(["WATCHDOG_USEC": "junk", "WATCHDOG_PID": "43"]).watchdogInterval == nil)
        for value in ["0", "-5", "junk", "", "99999999999999999999999"] {
            #expect(throws: SupervisorEnvironment.Invalid.self, "\(value)") { try read(["WATCHDOG_USEC": value]) }
        }
    }

    @Test("JOURNAL_STREAM is DEVICE:INODE; anything else is ignored")
    func journalStream() throws {
        let stream = try read(["JOURNAL_STREAM": "8:12345"]).journalStream
        #expect(stream?.device == 8 && stream?.inode == 12345)
        for value in ["8", "8:", ":1", "a:b", "1:2:3"] {
            #expect(try read(["JOURNAL_STREAM": value]).journalStream == nil, "\(value)")
        }
    }
}
