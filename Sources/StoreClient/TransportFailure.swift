import AsyncHTTPClient
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// What a transport error (no connection, a dropped one, a timeout) says, in a few words for a person.
struct TransportFailure: Sendable {
    /// A short reason: `connection refused`, `timed out`, `connection reset by peer`.
    let reason: String
    /// Whether the connection was refused: nothing listens at the address.
    let isConnectionRefused: Bool

    init(_ error: any Error) {
        let errnos = Self.errnoCodes(in: error)
        isConnectionRefused = errnos.contains(ECONNREFUSED)
        if let code = errnos.first {
            reason = String(cString: strerror(code)).lowercased()
        } else if let clientError = error as? HTTPClientError {
            switch clientError {
            case .connectTimeout, .deadlineExceeded, .readTimeout, .writeTimeout:
                reason = "timed out"
            case .remoteConnectionClosed:
                reason = "the service closed the connection"
            default:
                reason = String(describing: clientError)
            }
        } else if error is ChannelError {
            reason = "the connection failed (\(error))"
        } else {
            reason = String(describing: error)
        }
    }

    /// The `errno` values an error carries, its own or those of each address tried.
    private static func errnoCodes(in error: any Error) -> [Int32] {
        if let io = error as? IOError { return [io.errnoCode] }
        if let connection = error as? NIOConnectionError {
            return connection.connectionErrors.flatMap { errnoCodes(in: $0.error) }
        }
        return []
    }
}
