import QuireSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A listening stream socket handed over by the supervisor (``SocketActivation``), checked to be what the
/// service can serve, and made close-on-exec so that no child process inherits it.
public struct InheritedListener: Sendable, Equatable {
    /// The address families a service accepts.
    public enum Family: Sendable, Equatable, CustomStringConvertible {
        /// `AF_INET` or `AF_INET6`: a TCP socket.
        case internet
        /// `AF_UNIX`: a Unix stream socket.
        case unix

        /// How an error line names it.
        public var description: String {
            switch self {
            case .internet: "an internet (AF_INET or AF_INET6) socket"
            case .unix: "a Unix (AF_UNIX) socket"
            }
        }
    }

    /// The descriptor.
    public let descriptor: Int32
    /// Its family.
    public let family: Family
    /// The path a Unix socket is bound to (`getsockname`; `@name` in the abstract namespace, empty when unbound);
    /// nil for an internet socket.
    public let path: String?

    /// Checks that `descriptor` is an open socket of `family`, of type `SOCK_STREAM`, that listens
    /// (`SO_ACCEPTCONN`), then sets its `FD_CLOEXEC`.
    /// - Throws: ``SupervisorEnvironment/Invalid`` (`LISTEN_FDS`) naming the descriptor and what it is instead.
    public static func adopt(_ descriptor: Int32, family: Family) throws(SupervisorEnvironment.Invalid)
        -> InheritedListener
    {
        func refused(_ reason: String) -> SupervisorEnvironment.Invalid {
            SupervisorEnvironment.Invalid(
                variable: "LISTEN_FDS", value: "1", reason: "descriptor \(descriptor) \(reason)")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw refused("cannot be used: \(SystemCallError(call: "fstat"))")
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw refused("is not a socket") }
        let domain = try option(SO_DOMAIN, of: descriptor, refused)
        let found: Family
        switch domain {
        case AF_INET, AF_INET6: found = .internet
        case AF_UNIX: found = .unix
        default: throw refused("is a socket of address family \(domain), not \(family)")
        }
        guard found == family else { throw refused("is \(found), not \(family)") }
        let type = try option(SO_TYPE, of: descriptor, refused)
        guard type == Int32(SOCK_STREAM.rawValue) else {
            let name =
                type == Int32(SOCK_DGRAM.rawValue) ? "a datagram (SOCK_DGRAM) socket" : "a socket of type \(type)"
            throw refused("is \(name), not a stream (SOCK_STREAM) socket")
        }
        guard try option(SO_ACCEPTCONN, of: descriptor, refused) != 0 else {
            throw refused("is not listening (listen(2) was not called on it)")
        }
        var path: String?
        if family == .unix { path = try boundPath(of: descriptor, refused) }
        let flags = fcntl(descriptor, F_GETFD)
        guard flags >= 0, fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) == 0 else {
            throw refused("cannot be made close-on-exec: \(SystemCallError(call: "fcntl"))")
        }
        return InheritedListener(descriptor: descriptor, family: family, path: path)
    }

    /// An integer socket option at `SOL_SOCKET`.
    private static func option(
        _ name: Int32, of descriptor: Int32, _ refused: (String) -> SupervisorEnvironment.Invalid
    ) throws(SupervisorEnvironment.Invalid) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 else {
            throw refused("cannot be inspected: \(SystemCallError(call: "getsockopt"))")
        }
        return value
    }

    /// The path a Unix socket is bound to.
    private static func boundPath(
        of descriptor: Int32, _ refused: (String) -> SupervisorEnvironment.Invalid
    ) throws(SupervisorEnvironment.Invalid) -> String {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { throw refused("cannot be inspected: \(SystemCallError(call: "getsockname"))") }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        let count = max(0, min(Int(length) - pathOffset, MemoryLayout.size(ofValue: address.sun_path)))
        let bytes = withUnsafeBytes(of: &address.sun_path) { Array($0.prefix(count)) }
        if bytes.first == 0, bytes.count > 1 {
            return "@" + String(decoding: bytes.dropFirst(), as: UTF8.self)
        }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
