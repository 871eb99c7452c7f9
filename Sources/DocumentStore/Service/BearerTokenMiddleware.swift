import Crypto
import Hummingbird
import StoreCore

/// With a token in force (``ServiceControl``: a reload may set, change or remove it), every request that may change the store (any method but GET, HEAD and OPTIONS) must
/// carry `Authorization: Bearer TOKEN` (RFC 6750); others get 401 with a `WWW-Authenticate` challenge.
///
/// It guards by method rather than by route, so that a mutating route added later is guarded without anyone
/// remembering to. Tokens are compared by their SHA-256 digests: where a comparison stops early it reveals how
/// much of a digest matched, which tells nothing about the token.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    private let control: ServiceControl

    /// The methods that read only.
    static var safeMethods: Set<HTTPRequest.Method> { [.get, .head, .options] }

    init(control: ServiceControl) {
        self.control = control
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard !Self.safeMethods.contains(request.method), let tokenDigest = control.tokenDigest else {
            return try await next(request, context)
        }
        guard let authorization = request.headers[.authorization] else {
            throw ProblemDetails.bearerTokenRequired(invalidToken: false)
        }
        guard let token = Self.bearerToken(in: authorization), ServiceControl.digest(token) == tokenDigest else {
            throw ProblemDetails.bearerTokenRequired(invalidToken: true)
        }
        return try await next(request, context)
    }


    /// The token of a `Bearer` credential (the scheme is case-insensitive), or nil for another scheme.
    static func bearerToken(in authorization: String) -> Substring? {
        let parts = authorization.trimmingWhitespace().split(
            separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingWhitespace()
    }
}
