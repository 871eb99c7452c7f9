import QuireSystem
import Supervision
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Socket activation's variables and the socket handed over")
struct SocketActivationTests {
    private func read(_ environment: [String: String], pid: Int32 = 42) throws(SupervisorEnvironment.Invalid)
        -> SocketActivation?
    {
        try SocketActivation(environment, processID: pid)
    }

    /// The line a refusal prints.
    private func refusal(_ environment: [String: String]) -> String? {
        do {
            _ = try read(environment)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("LISTEN_FDS for this LISTEN_PID: descriptors from 3, names from LISTEN_FDNAMES; unset means none")
    func handedOver() throws {
        #expect(try read([:]) == nil)
        #expect(try read(["LISTEN_PID": "42"]) == nil)
        let one = try #require(try read(["LISTEN_FDS": "1", "LISTEN_PID": "42"]))
        #expect(one.descriptors == [3] && one.names.isEmpty)
        #expect(try one.single() == 3)
        let two = try #require(try read(["LISTEN_FDS": "2", "LISTEN_PID": "42", "LISTEN_FDNAMES": "http:"]))
        #expect(two.descriptors == [3, 4] && two.names == ["http", ""])
        #expect(throws: SupervisorEnvironment.Invalid.self) { try two.single() }
    }

    @Test("variables that cannot be used are refused with the variable, the value and why")
    func refusals() {
        #expect(refusal(["LISTEN_FDS": "1"])?.hasPrefix("LISTEN_FDS=1 cannot be used: LISTEN_PID is not set") == true)
        #expect(
            refusal(["LISTEN_FDS": "1", "LISTEN_PID": "7"])
                == "LISTEN_PID=7 cannot be used: the sockets are meant for process 7, not for this one (42)")
        for pid in ["", "x", "-3", "0", "99999999999"] {
            #expect(refusal(["LISTEN_FDS": "1", "LISTEN_PID": pid])?.hasPrefix("LISTEN_PID=") == true, "\(pid)")
        }
        for count in ["", "0", "-1", "one", "1025", "99999999999999999999"] {
            #expect(refusal(["LISTEN_FDS": count, "LISTEN_PID": "42"])?.hasPrefix("LISTEN_FDS=") == true, "\(count)")
        }
        #expect(
            refusal(["LISTEN_FDS": "1", "LISTEN_PID": "42", "LISTEN_FDNAMES": "a:b"])
                == "LISTEN_FDNAMES=a:b cannot be used: it names 2 sockets, but LISTEN_FDS counts 1")
    }

    @Test("a listening Unix stream socket is adopted with its path and made close-on-exec; its family is checked")
    func adoptsUnixSocket() throws {
        let path = "/tmp/quire-activation-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        try #require(bound && listen(descriptor, 4) == 0)
        #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC == 0)
        let adopted = try InheritedListener.adopt(descriptor, family: .unix)
        #expect(adopted.path == path && adopted.family == .unix)
        #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
        #expect(throws: SupervisorEnvironment.Invalid.self) {
            try InheritedListener.adopt(descriptor, family: .internet)
        }
    }
}
