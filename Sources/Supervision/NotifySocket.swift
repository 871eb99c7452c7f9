import QuireSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A datagram socket to the supervisor's `NOTIFY_SOCKET`: one `sendto` per notification, never blocking (a
/// supervisor that does not read its socket loses a notification; the service does not stall).
final class NotifySocket: Sendable {
    private let descriptor: Int32
    private let address: SupervisorEnvironment.NotifyAddress

    /// Opens an unbound `AF_UNIX`/`SOCK_DGRAM` socket, close-on-exec (so that no PDF worker inherits it), for
    /// `address`.
    /// - Throws: ``SystemCallError`` (`socket`), e.g. `EMFILE`.
    init(address: SupervisorEnvironment.NotifyAddress) throws(SystemCallError) {
        descriptor = try SystemCall.retryingOnInterrupt("socket") {
            socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        self.address = address
    }

    deinit {
        SystemCall.close(descriptor)
    }

    /// Sends `datagram` (`MSG_DONTWAIT`, `MSG_NOSIGNAL`).
    /// - Throws: ``SystemCallError`` (`sendto`): `ENOENT` or `ECONNREFUSED` when no one listens, `EAGAIN` when
    ///   the supervisor's queue is full.
    func send(_ datagram: String) throws(SystemCallError) {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = address.socketPathBytes
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: pathBytes.prefix(raw.count))
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count)
        let bytes = Array(datagram.utf8)
        _ = try withUnsafePointer(to: &storage) { pointer throws(SystemCallError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress throws(SystemCallError) in
                try SystemCall.retryingOnInterrupt("sendto", path: address.description) {
                    bytes.withUnsafeBytes { buffer in
                        sendto(
                            descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL),
                            socketAddress, length)
                    }
                }
            }
        }
    }
}

extension SupervisorEnvironment.NotifyAddress: CustomStringConvertible {
    /// The address as `NOTIFY_SOCKET` spells it: the path, or `@name`.
    public var description: String {
        switch self {
        case .path(let path): path
        case .abstract(let name): "@" + name
        }
    }
}
