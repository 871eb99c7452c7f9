import HTTPTypes
import Hummingbird
import Synchronization
import StoreCore

/// Answers every error with RFC 9457 problem details: a ``ProblemDetails`` as it is, a ``StoreError`` of the store's
/// domain core as ``ProblemDetails/init(_:)`` maps it, another `HTTPResponseError`
/// (Hummingbird's 404 for an unknown route, 400 for a malformed JSON body, 413 for a body over the decoder's limit)
/// with its status, its headers and a `detail` that says what was refused (the limit, as `limit`, on a 413), anything
/// else as a 500 whose cause goes to the log, not to the client. A path that has routes, but none for the request's
/// method, is a 405 with `Allow` (Hummingbird's router says 404). Problems without an `instance` get the request
/// path.
struct ProblemResponseMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The routes of the router, filled in once its routes are added (the middleware comes before them).
    let routes: RouteTable

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var problem: ProblemDetails
        do {
            return try await next(request, context)
        } catch let error as ProblemDetails {
            problem = error
        } catch let error as StoreError {
            problem = ProblemDetails(error)
        } catch let error as any HTTPResponseError {
            problem = try self.problem(for: error, request: request, context: context)
        } catch let error as CancellationError {
            // The client went away: there is no one to answer, and nothing failed.
            throw error
        } catch {
            context.logger.error(
                "request failed",
                metadata: ["error": "\(String(reflecting: error))", "error.type": "\(type(of: error))"])
            problem = .internalError(requestID: context.id)
        }
        if problem.instance == nil { problem.instance = request.uri.path }
        return try problem.response(from: request, context: context)
    }

    /// The problem for one of Hummingbird's errors: its status, its headers, its message (or what the status means
    /// for this request) as the detail.
    private func problem(
        for error: any HTTPResponseError, request: Request, context: Context
    ) throws -> ProblemDetails {
        var headers = try error.response(from: request, context: context).headers
        headers[.contentType] = nil
        headers[.contentLength] = nil
        let message = (error as? HTTPError)?.body
        let target = "\(request.method) \(request.uri.path.prefix(200))"
        switch error.status {
        case .notFound where message == nil:
            let allowed = routes.methods(forPath: request.uri.path)
            guard !allowed.isEmpty else {
                return ProblemDetails(status: .notFound, detail: "no route for \(target)", headers: headers)
            }
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            headers[.allow] = allow
            return ProblemDetails(
                status: .methodNotAllowed,
                detail: "\(request.uri.path.prefix(200)) does not accept \(request.method) (it accepts \(allow))",
                headers: headers)
        case .contentTooLarge:
            let limit = context.maxUploadSize
            var problem = ProblemDetails.contentTooLarge(limit: limit)
            problem.detail = "the body of \(target) is larger than the \(limit) bytes it may have"
            problem.headers.append(contentsOf: headers)
            return problem
        default:
            let detail = message ?? "the service cannot answer \(target): \(error.status.reasonPhrase.lowercased())"
            return ProblemDetails(status: error.status, detail: detail, headers: headers)
        }
    }
}

/// The routes of a router, by method: filled in once, after the routes are added, and read by every request that
/// finds no route.
final class RouteTable: Sendable {
    private let routes = Mutex<[(path: RouterPath, method: HTTPRequest.Method)]>([])

    /// Keeps the routes of `router`.
    func fill(from router: Router<some RequestContext>) {
        let described = router.routes.map { ($0.path, $0.method) }
        routes.withLock { $0 = described }
    }

    /// The methods with a route whose path matches `path`, sorted by name; HEAD wherever GET (the router answers
    /// it).
    func methods(forPath path: String) -> [HTTPRequest.Method] {
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        var matching = Set(
            routes.withLock { routes in routes.filter { Self.matches($0.path, components) }.map(\.method.rawValue) })
        if matching.contains("GET") { matching.insert("HEAD") }
        return matching.sorted().compactMap { HTTPRequest.Method($0) }
    }

    private static func matches(_ route: RouterPath, _ components: [Substring]) -> Bool {
        var index = 0
        for element in route.components {
            if element.description == "**" { return true }
            guard index < components.count, element ~= components[index] else { return false }
            index += 1
        }
        return index == components.count
    }
}
