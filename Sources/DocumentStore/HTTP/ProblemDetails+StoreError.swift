import HTTPTypes
import StoreCore

/// The one mapping of the store's domain errors to the problems of `openapi.yaml`.
extension ProblemDetails {
    /// The problem for a domain error: its status, `type` and title by case, the error's description as the
    /// detail, its retry hint as `Retry-After`, and the headers and extension members the status needs (`ETag` and
    /// `etag` on 412, the `Document-Password` challenge on 401, the limit on 413).
    public init(_ error: StoreError) {
        let status: HTTPResponse.Status
        var type = "about:blank"
        var title: String?
        // The extension members the case sets.
        var parameter: String?
        var etag: String?
        var version: String?
        var limit: String?
        var budget: String?
        var headers: HTTPFields = [:]
        switch error.reason {
        case .documentNotFound:
            status = .notFound
        case .versionNotFound:
            (status, type, title) = (.notFound, "/problems/version-not-found", "No such version")
        case .invalidParameter(let name, _):
            (status, type, title) = (.badRequest, "/problems/invalid-parameter", "Invalid parameter")
            parameter = name
        case .invalidInput:
            status = .badRequest
        case .passwordRequired:
            (status, type, title) = (.unauthorized, "/problems/password-required", "Password required")
            headers[.wwwAuthenticate] = Self.documentPasswordChallenge
        case .damagedPDF:
            (status, type, title) = (.unprocessableContent, "/problems/damaged-pdf", "Damaged PDF")
        case .damagedDocument:
            (status, type, title) = (.unprocessableContent, "/problems/damaged-document", "Damaged document")
        case .pdfWorkFailed(let failure, _):
            switch failure {
            case .deadlineExceeded:
                (status, type, title) = (.unprocessableContent, "/problems/pdf-work-too-long", "PDF work too long")
            case .workerCrashed:
                (status, type, title) = (.unprocessableContent, "/problems/pdf-worker-crashed", "PDF worker crashed")
            case .waitedTooLong, .queueFull, .unavailable:
                (status, type, title) = (.serviceUnavailable, "/problems/pdf-workers-busy", "PDF workers busy")
            case .shutDown:
                status = .serviceUnavailable
            case .refused:
                // Every other refusal became its domain error where the work was asked for (StoreError.pdfWork):
                // this one is the worker finding no such page.
                status = .notFound
            }
        case .fileInAnotherDocument:
            (status, type, title) = (.conflict, "/problems/file-in-another-document", "File already in a document")
        case .unusableFile:
            (status, type, title) = (.unprocessableContent, "/problems/unusable-file", "Unusable file")
        case .pathOutsideRoots:
            (status, type, title) = (.forbidden, "/problems/path-outside-roots", "Path outside the roots")
        case .pageOutOfRange:
            (status, type, title) = (.notFound, "/problems/page-out-of-range", "No such page")
        case .inConflict:
            (status, type, title) = (.conflict, "/problems/document-in-conflict", "Document in conflict")
        case .noConflict:
            (status, type, title) = (.conflict, "/problems/no-conflict", "No conflict")
        case .preconditionRequired:
            (status, type, title) = (.preconditionRequired, "/problems/if-match-required", "If-Match required")
        case .preconditionFailed(let current):
            (status, type, title) = (.preconditionFailed, "/problems/precondition-failed", "Precondition failed")
            if let current {
                headers[.eTag] = current.headerValue
                etag = current.headerValue
                version = current.documentVersion.map { String($0) }
            }
        case .tooLarge(let bytes):
            (status, type, title) = (.contentTooLarge, "/problems/content-too-large", "Content too large")
            limit = String(bytes)
        case .uploadBudgetExhausted(let bytes, _):
            (status, type, title) = (.serviceUnavailable, "/problems/upload-budget-exhausted", "Too many uploads")
            budget = String(bytes)
        case .unavailable:
            status = .serviceUnavailable
        case .fileNotRemoved:
            (status, type, title) = (.internalServerError, "/problems/file-not-removed", "File not removed")
        case .internalFailure:
            status = .internalServerError
        }
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(retryAfter.components.seconds) }
        self.init(status: status, type: type, title: title, detail: Self.detail(of: error), headers: headers)
        (members.parameter, members.etag, members.version) = (parameter, etag, version)
        (members.limit, members.budget) = (limit, budget)
    }

    /// The problem's detail for `error`: its description, but in the API's own terms where the remedy is a header
    /// to send or a route to call (a password, a precondition, the versions list).
    static func detail(of error: StoreError) -> String {
        switch error.reason {
        case .versionNotFound(let id, let version):
            return "document \(id.rawValue) has no version \"\(version.prefix(80))\" (GET /documents/\(id.rawValue)/"
                + "versions lists them)"
        case .passwordRequired(let what, let wrong):
            return wrong
                ? "\(what) is encrypted and the X-Document-Password given does not open it"
                : "\(what) is encrypted: send its password in the X-Document-Password header"
        case .preconditionRequired:
            return "send If-Match with the ETag you last read (or *) so that a change made since is not overwritten"
        case .preconditionFailed:
            return "the resource changed since the version named in If-Match or If-None-Match"
        default:
            return error.description
        }
    }
}
