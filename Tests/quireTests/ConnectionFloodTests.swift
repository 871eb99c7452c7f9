import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real `quire serve` under many idle connections, started with the soft open-file limit of a default shell.
@Suite("quire serve under many connections")
struct ConnectionFloodTests {
    @Test("with 2000 idle connections held, /health still answers at once (the service raised its file limit)")
    func healthUnderIdleConnections() throws {
        Self.raiseOwnFileLimit()
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox, environment: ["QUIRE_TEST_SOFT_FILE_LIMIT": "1024"])
        var held: [Int32] = []
        defer { for descriptor in held { close(descriptor) } }
        for _ in 0..<2000 {
            guard let descriptor = Self.connect(port: service.port, timeout: 2) else { break }
            held.append(descriptor)
        }
        #expect(held.count == 2000)
        let start = ContinuousClock.now
        let answer = Self.health(port: service.port, timeout: 5)
        let elapsed = ContinuousClock.now - start
        #expect(answer.hasPrefix("HTTP/1.1 200 OK"), "\(answer)")
        #expect(elapsed < .seconds(1), "/health took \(elapsed)")
        print("health with \(held.count) idle connections held: \(elapsed)")
        #expect(service.stop() == 0)
    }

    /// Raises this process's soft limit of open files to its hard limit (it holds the 2000 client ends).
    static func raiseOwnFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// A TCP connection to the loopback port, or nil when it is not established within `timeout` seconds.
    static func connect(port: Int, timeout: Double) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 {
            var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard errno == EINPROGRESS, poll(&poller, 1, Int32(timeout * 1000)) == 1,
                getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0, failure == 0
            else {
                close(descriptor)
                return nil
            }
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return descriptor
    }

    /// The answer to `GET /health` on a new connection (what arrived within `timeout` seconds).
    static func health(port: Int, timeout: Double) -> String {
        guard let descriptor = connect(port: port, timeout: timeout) else { return "(no connection)" }
        defer { close(descriptor) }
        let request = Array("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        guard Glibc.send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            return "(send failed)"
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) == 1 else { continue }
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer.prefix(count)
        }
        return String(decoding: received, as: UTF8.self)
    }
}
