import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to a loopback port, for clients that misbehave on purpose (send half a request, stop
/// reading). Every read waits at most the time it is given, every send at most 10 s.
final class RawConnection {
    let descriptor: Int32

    /// Connects to `127.0.0.1:port`; a `receiveBuffer` makes the kernel's receive buffer that small.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        // The descriptor is stored only once connected: a throwing initializer of a class whose properties are
        // all set runs `deinit`, which would close it a second time (and perhaps someone else's descriptor).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket: errno \(errno)") }
        // A send that the peer does not take within 10 s fails: no test waits unbounded.
        var sendTimeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw Failure("connect: errno \(code)")
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Sends all of `text`.
    func send(_ text: String) throws {
        try send(bytes: Array(text.utf8))
    }

    /// Sends all of `bytes`.
    func send(bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw Failure("write: errno \(errno)") }
            sent += count
        }
    }

    /// What arrives within `timeout`, read until `done` holds for everything read so far, the peer closes, or
    /// the time is up. `closed` tells whether the peer closed (or reset) the connection.
    func read(timeout: Duration, until done: (String) -> Bool = { _ in false }) -> (text: String, closed: Bool) {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return (String(decoding: received, as: UTF8.self), false) }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&poller, 1, max(1, milliseconds))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer.prefix(count)
            if done(String(decoding: received, as: UTF8.self)) {
                return (String(decoding: received, as: UTF8.self), false)
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

extension RawConnection {
    /// At most `count` bytes, as soon as some arrive within `timeout` (none when the time is up); `closed` tells
    /// whether the peer closed (or reset) the connection.
    func read(atMost count: Int, timeout: Duration) -> (text: String, closed: Bool) {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000)
        guard poll(&poller, 1, max(1, milliseconds)) > 0 else { return ("", false) }
        var buffer = [UInt8](repeating: 0, count: count)
        let received = Glibc.read(descriptor, &buffer, count)
        guard received > 0 else { return ("", true) }
        return (String(decoding: buffer.prefix(received), as: UTF8.self), false)
    }

    /// Ends the connection at once (both directions), as a client that goes away.
    func shutdown() {
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }
}
