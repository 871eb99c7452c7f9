/// Why a request to the service failed.
public enum StoreClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing answers at the service's URL (`connectionRefused` true when the connection was refused, which is
    /// what a stopped service looks like), or the connection failed or timed out before an answer.
    case unreachable(server: String, reason: String, connectionRefused: Bool)
    /// The service answered with an error: its problem details.
    case problem(ServiceProblem)
    /// A conditional request named a version of the document that is not its current one (412): someone else
    /// changed it since. `currentEtag` is the document's validator now and `currentVersion` its version (nil
    /// when the service did not say, or the document is gone): read the document again, then decide.
    case versionMismatch(document: String, currentEtag: String?, currentVersion: Int64?, problem: ServiceProblem)
    /// The answer is not what the service's API promises (wrong status, media type or JSON).
    case unexpectedResponse(server: String, reason: String)
    /// The event stream dropped and could not be resumed in `attempts` attempts in a row.
    case eventStreamLost(server: String, attempts: Int, reason: String)
    /// The URL given for the service is not an `http` or `https` URL with a host.
    case invalidServerURL(String)

    /// One line for a person: what failed, where, and what to do.
    public var description: String {
        switch self {
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
