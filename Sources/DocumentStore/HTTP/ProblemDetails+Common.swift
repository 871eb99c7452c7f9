import HTTPTypes
import StoreCore

/// The problems every route may answer with. Document-specific problems (a wrong password, a damaged PDF, a
/// conflict) belong with the document routes; their `type` identifiers are listed in `openapi.yaml`.
extension ProblemDetails {
    /// 400 for a request the service cannot make sense of; `detail` says what is wrong with it.
    public static func badRequest(_ detail: String) -> ProblemDetails {
        ProblemDetails(status: .badRequest, detail: detail)
    }

    /// 400 for a header whose value does not follow its syntax (a malformed `If-Match`, say).
    public static func malformedHeader(_ name: HTTPField.Name, value: String) -> ProblemDetails {
        var problem = ProblemDetails(
            status: .badRequest, type: "/problems/malformed-header", title: "Malformed header",
            detail: "the \(name.rawName) header \"\(value)\" does not follow its syntax")
        problem.members.header = name.rawName
        return problem
    }

    /// 404 for a resource that does not exist; `detail` names it.
    public static func notFound(_ detail: String) -> ProblemDetails {
        ProblemDetails(status: .notFound, detail: detail)
    }

    /// 401 for a mutating request without the configured bearer token (`invalidToken`: one was sent but is
    /// wrong), with the `WWW-Authenticate` challenge of RFC 6750.
    public static func bearerTokenRequired(invalidToken: Bool) -> ProblemDetails {
        let challenge = invalidToken ? "Bearer realm=\"quire\", error=\"invalid_token\"" : "Bearer realm=\"quire\""
        let detail =
            invalidToken
            ? "the bearer token in the Authorization header is not the service's token"
            : "this request changes the store: send the service's token as \"Authorization: Bearer TOKEN\""
        return ProblemDetails(
            status: .unauthorized, type: "/problems/bearer-token-required", title: "Bearer token required",
            detail: detail, headers: [.wwwAuthenticate: challenge])
    }

    /// 428 for a write sent without `If-Match`: the client must say which version it means to replace.
    public static func ifMatchRequired(_ detail: String) -> ProblemDetails {
        var problem = ProblemDetails(StoreError.preconditionRequired)
        problem.detail = detail
        return problem
    }

    /// 412 when `If-Match` or `If-None-Match` does not hold; carries the current tag (if the resource exists) in
    /// `ETag` and in the `etag` member, so that the client can re-read and retry.
    public static func preconditionFailed(current: EntityTag?, detail: String) -> ProblemDetails {
        var problem = ProblemDetails(StoreError.preconditionFailed(current: current))
        problem.detail = detail
        return problem
    }

    /// 416 for a `Range` that selects no byte of a representation of `completeLength` bytes, with
    /// `Content-Range: bytes */LENGTH` (RFC 9110 §15.5.17).
    public static func rangeNotSatisfiable(completeLength: Int) -> ProblemDetails {
        ProblemDetails(
            status: .rangeNotSatisfiable,
            detail: "the requested range selects no byte of the \(completeLength)-byte content",
            headers: [.contentRange: ByteRange.unsatisfiedContentRange(completeLength: completeLength)])
    }

    /// 413 for a request body larger than the configured limit.
    public static func contentTooLarge(limit: Int) -> ProblemDetails {
        ProblemDetails(StoreError.tooLarge(limit: limit))
    }

    /// 503 for an upload refused because the uploads in flight already hold the service's budget of upload bytes;
    /// `Retry-After` says when to try again.
    public static func uploadBudgetExhausted(budget: Int, retryAfterSeconds: Int) -> ProblemDetails {
        ProblemDetails(StoreError.uploadBudgetExhausted(budget: budget, retryAfterSeconds: retryAfterSeconds))
    }

    /// 400 for a `Last-Event-ID` beyond the newest event of the log (another store's id, or a log that was
    /// replaced): the client would wait for events that never come.
    public static func futureEventID(_ id: Int64, newest: Int64) -> ProblemDetails {
        var problem = ProblemDetails(
            status: .badRequest, type: "/problems/future-event-id", title: "Unknown event id",
            detail: "Last-Event-ID \(id) is beyond the newest event of this store (\(newest)): reconnect without "
                + "Last-Event-ID, or with an id this store sent")
        problem.members.newest = String(newest)
        return problem
    }

    /// 500 for an unexpected failure: the details stay in the service's log, found by the request id.
    public static func internalError(requestID: String) -> ProblemDetails {
        var problem = ProblemDetails(
            status: .internalServerError,
            detail: "the service failed unexpectedly; its log has the details under request id \(requestID)")
        problem.members.requestId = requestID
        return problem
    }
}
