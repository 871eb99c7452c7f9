import Hummingbird
import StoreCore

/// Answers every error with RFC 9457 problem details: a ``ProblemDetails`` as it is, a ``StoreError`` of the store's
/// domain core as ``ProblemDetails/init(_:)`` maps it, another `HTTPResponseError`
/// (Hummingbird's 404 for an unknown route, 400 for a malformed JSON body, 413 for a body over the decoder's limit)
/// with its status and headers, anything else as a 500 whose cause goes to the log, not to the client.
/// Problems without an `instance` get the request path.
struct ProblemResponseMiddleware<Context: RequestContext>: RouterMiddleware {
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
            problem = try Self.problem(for: error, request: request, context: context)
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

    /// The problem for one of Hummingbird's errors: its status, its headers, its message as the detail.
    private static func problem(
        for error: any HTTPResponseError, request: Request, context: Context
    ) throws -> ProblemDetails {
        var headers = try error.response(from: request, context: context).headers
        headers[.contentType] = nil
        headers[.contentLength] = nil
        var detail = (error as? HTTPError)?.body
        if detail == nil, error.status == .notFound {
            detail = "no route for \(request.method) \(request.uri.path)"
        }
        return ProblemDetails(status: error.status, detail: detail, headers: headers)
    }
}
