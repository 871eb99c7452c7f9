#if canImport(Glibc)
    import Glibc
#endif

/// A supervisor's end of `NOTIFY_SOCKET` for tests: a bound `AF_UNIX`/`SOCK_DGRAM` socket whose datagrams a test
/// reads with bounded waits, each with the `CLOCK_MONOTONIC` time it was read at.
public final class NotifyReceiver: @unchecked Sendable {
    private let descriptor: Int32
    /// What to put in `NOTIFY_SOCKET`: the path, or `@name` for the abstract namespace.
    public let address: String
    private let path: String?

    /// Binds a socket at `path`, or at a unique abstract name when `path` is nil.
    public init(path: String?) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(call: "socket", errno: errno) }
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8]
        if let path {
            bytes = Array(path.utf8) + [0]
            address = path
        } else {
            let name = "quire-test-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            bytes = [0] + Array(name.utf8)
            address = "@" + name
        }
        self.path = path
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(call: "bind", errno: code)
        }
    }

    deinit {
        close(descriptor)
        if let path { unlink(path) }
    }

    /// The next datagram and when it was read (µs of `CLOCK_MONOTONIC`), or nil when none came within `timeout`.
    public func receive(timeout: Duration) -> (text: String, at: UInt64)? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds = max(0, Int32(left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000))
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            return (String(decoding: buffer[..<count], as: UTF8.self), Self.monotonicMicroseconds())
        }
    }

    /// Datagrams until one has a line `line` (returned, with those before it), or nil when none came within
    /// `timeout`.
    public func receive(untilLine line: String, timeout: Duration) -> [(text: String, at: UInt64)]? {
        let deadline = ContinuousClock.now + timeout
        var received: [(text: String, at: UInt64)] = []
        while ContinuousClock.now < deadline {
            guard let next = receive(timeout: deadline - ContinuousClock.now) else { return nil }
            received.append(next)
            if next.text.split(separator: "\n").contains(Substring(line)) { return received }
        }
        return nil
    }

    /// `CLOCK_MONOTONIC` in microseconds.
    public static func monotonicMicroseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1_000
    }

    /// A failed call of the receiver's setup.
    public struct Failure: Error, CustomStringConvertible {
        /// The call.
        public let call: String
        /// Its errno.
        public let errno: Int32
        /// `call: reason`.
        public var description: String { "\(call): \(String(cString: strerror(errno)))" }
    }
}
