/// Why a request to the service failed.
///
/// A struct with a stable ``code`` (as swift-nio's `FileSystemError` is), so that a kind of failure added later
/// breaks no caller: compare ``code`` with a ``Code`` value, and read what the failure names through its
/// properties (``problem``, ``server``, ``currentEtag``, ``currentVersion``). The static functions named after the
/// codes make such errors.
public struct StoreClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the failure is, with what it names: exhaustive inside the package, never public, so that a new reason
    /// is not a breaking change.
    package enum Reason: Sendable, Hashable {
        /// Nothing answers at the service's URL, or the connection failed or timed out before an answer.
        case unreachable(server: String, reason: String, connectionRefused: Bool)
        /// The service answered with an error: its problem details.
        case problem(ServiceProblem)
        /// A conditional request named a version of the document that is not its current one (412).
        case versionMismatch(document: String, currentEtag: String?, currentVersion: Int64?, problem: ServiceProblem)
        /// The answer is not what the service's API promises.
        case unexpectedResponse(server: String, reason: String)
        /// The event stream dropped and could not be resumed.
        case eventStreamLost(server: String, attempts: Int, reason: String)
        /// The URL given for the service is unusable.
        case invalidServerURL(String)
    }

    /// The kind of a failure: stable, comparable, and open to new kinds.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as the static function that makes such an error is named (`versionMismatch`).
        public let name: String

        private init(_ name: String) { self.name = name }

        /// The code's name.
        public var description: String { name }

        /// Nothing answers at the service's URL, or the connection failed or timed out before an answer.
        public static let unreachable = Code("unreachable")
        /// The service answered with an error (its ``StoreClientError/problem``).
        public static let problem = Code("problem")
        /// A conditional request named a version of the document that is not its current one (412).
        public static let versionMismatch = Code("versionMismatch")
        /// The answer is not what the service's API promises (wrong status, media type or JSON).
        public static let unexpectedResponse = Code("unexpectedResponse")
        /// The event stream dropped and could not be resumed.
        public static let eventStreamLost = Code("eventStreamLost")
        /// The URL given for the service is not an `http` or `https` URL with a host.
        public static let invalidServerURL = Code("invalidServerURL")
    }

    /// What the failure is and names.
    package let reason: Reason

    /// A failure for `reason`.
    package init(_ reason: Reason) { self.reason = reason }

    /// The failure's kind.
    public var code: Code {
        switch reason {
        case .unreachable: .unreachable
        case .problem: .problem
        case .versionMismatch: .versionMismatch
        case .unexpectedResponse: .unexpectedResponse
        case .eventStreamLost: .eventStreamLost
        case .invalidServerURL: .invalidServerURL
        }
    }

    /// The service's problem details, when it answered with an error (``Code/problem`` and
    /// ``Code/versionMismatch``).
    public var problem: ServiceProblem? {
        switch reason {
        case .problem(let problem), .versionMismatch(_, _, _, let problem): problem
        default: nil
        }
    }

    /// The service's URL, for a failure to reach it, an answer outside its API, or a lost event stream.
    public var server: String? {
        switch reason {
        case .unreachable(let server, _, _), .unexpectedResponse(let server, _), .eventStreamLost(let server, _, _):
            server
        default: nil
        }
    }

    /// True when the connection was refused, which is what a stopped service looks like.
    public var isConnectionRefused: Bool {
        guard case .unreachable(_, _, true) = reason else { return false }
        return true
    }

    /// On ``Code/versionMismatch``: the document's validator now (nil when the service did not say, or the
    /// document is gone).
    public var currentEtag: String? {
        guard case .versionMismatch(_, let etag, _, _) = reason else { return nil }
        return etag
    }

    /// On ``Code/versionMismatch``: the document's version now (nil when the service did not say, or the document
    /// is gone).
    public var currentVersion: Int64? {
        guard case .versionMismatch(_, _, let version, _) = reason else { return nil }
        return version
    }

    /// Nothing answers at the service's URL (`connectionRefused` true when the connection was refused, which is
    /// what a stopped service looks like), or the connection failed or timed out before an answer.
    public static func unreachable(server: String, reason: String, connectionRefused: Bool) -> StoreClientError {
        StoreClientError(.unreachable(server: server, reason: reason, connectionRefused: connectionRefused))
    }

    /// The service answered with an error: its problem details.
    public static func problem(_ problem: ServiceProblem) -> StoreClientError { StoreClientError(.problem(problem)) }

    /// A conditional request named a version of the document that is not its current one (412): someone else
    /// changed it since. `currentEtag` is the document's validator now and `currentVersion` its version (nil
    /// when the service did not say, or the document is gone): read the document again, then decide.
    public static func versionMismatch(
        document: String, currentEtag: String?, currentVersion: Int64?, problem: ServiceProblem
    ) -> StoreClientError {
        StoreClientError(
            .versionMismatch(
                document: document, currentEtag: currentEtag, currentVersion: currentVersion, problem: problem))
    }

    /// The answer is not what the service's API promises (wrong status, media type or JSON).
    public static func unexpectedResponse(server: String, reason: String) -> StoreClientError {
        StoreClientError(.unexpectedResponse(server: server, reason: reason))
    }

    /// The event stream dropped and could not be resumed in `attempts` attempts in a row.
    public static func eventStreamLost(server: String, attempts: Int, reason: String) -> StoreClientError {
        StoreClientError(.eventStreamLost(server: server, attempts: attempts, reason: reason))
    }

    /// The URL given for the service is not an `http` or `https` URL with a host.
    public static func invalidServerURL(_ url: String) -> StoreClientError { StoreClientError(.invalidServerURL(url)) }

    /// One line for a person: what failed, where, and what to do.
    public var description: String {
        switch reason {
        case .unreachable(let server, _, true):
            return "no quire service at \(server): start one with `quire serve`"
        case .unreachable(let server, let reason, false):
            return "no quire service at \(server) (\(reason)): start one with `quire serve`, or check --server"
        case .problem(let problem), .versionMismatch(_, _, _, let problem):
            return problem.message
        case .unexpectedResponse(let server, let reason):
            return "the service at \(server) answered outside its API: \(reason)"
        case .eventStreamLost(let server, let attempts, let reason):
            return "lost the event stream of \(server) (\(reason)); \(attempts) attempts to resume it failed"
        case .invalidServerURL(let url):
            return "\(url) is not a service URL: give one such as http://127.0.0.1:8080"
        }
    }
}
