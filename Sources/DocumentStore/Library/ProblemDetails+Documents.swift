import PDFWorkerWire
import DocumentModel
import HTTPTypes
import PDFTypes

/// The document-specific problems of `openapi.yaml`.
extension ProblemDetails {
    /// 404: no document has this id.
    static func documentNotFound(_ id: DocumentID) -> ProblemDetails {
        .notFound("no document has the id \(id.rawValue)")
    }

    /// 404: the document has no version with this id.
    static func versionNotFound(_ id: DocumentID, _ version: String) -> ProblemDetails {
        ProblemDetails(
            status: .notFound, type: "/problems/version-not-found", title: "No such version",
            detail: "document \(id.rawValue) has no version \"\(version.prefix(80))\" (GET /documents/\(id.rawValue)/versions "
                + "lists them)")
    }

    /// 400: the id in the path is not a valid document id.
    static func invalidID(_ text: String) -> ProblemDetails {
        ProblemDetails(
            status: .badRequest, type: "/problems/invalid-id", title: "Invalid document id",
            detail: "\"\(text.prefix(80))\" is not a document id (1 to 64 letters, digits, '-' and '_')")
    }

    /// 400: a parameter (path, query or body member) is out of range or malformed.
    static func invalidParameter(_ name: String, _ detail: String) -> ProblemDetails {
        ProblemDetails(
            status: .badRequest, type: "/problems/invalid-parameter", title: "Invalid parameter", detail: detail,
            extensions: ["parameter": name])
    }

    /// The `WWW-Authenticate` challenge of a 401 about a document password (RFC 9110 §11.6.1): the client
    /// answers it with the `X-Document-Password` header.
    static let documentPasswordChallenge = "Document-Password realm=\"quire\""

    /// 401: an encrypted PDF without its password, or with a wrong one; with the `Document-Password` challenge.
    static func passwordRequired(_ what: String, wrong: Bool) -> ProblemDetails {
        ProblemDetails(
            status: .unauthorized, type: "/problems/password-required", title: "Password required",
            detail: wrong
                ? "\(what) is encrypted and the X-Document-Password given does not open it"
                : "\(what) is encrypted: send its password in the X-Document-Password header",
            headers: [.wwwAuthenticate: documentPasswordChallenge])
    }

    /// 422: the bytes are not a PDF the service can open.
    static func damagedPDF(_ what: String, _ reason: String) -> ProblemDetails {
        ProblemDetails(
            status: .unprocessableContent, type: "/problems/damaged-pdf", title: "Damaged PDF",
            detail: "\(what): \(reason)")
    }

    /// 422: a file of the document is no longer a readable PDF (state `damaged`): nothing of it is served until
    /// it is one again.
    static func damagedDocument(_ id: DocumentID, _ damage: DocumentRepresentations.Damage) -> ProblemDetails {
        ProblemDetails(
            status: .unprocessableContent, type: "/problems/damaged-document", title: "Damaged document",
            detail: "document \(id.rawValue) is damaged: \(damage.reason); it is served again once the file is a "
                + "readable PDF")
    }

    /// The problem for a PDF request that a worker process did not answer with a result: 422 when the document
    /// is at fault (too slow, crashed its worker, damaged), 503 with `Retry-After` when the service is (no worker
    /// free in time, too many requests waiting), 401/404/400 for what the worker refused.
    /// - Parameter work: what was being done, for the detail ("rendering page 3 of document X").
    static func pdfWork(_ error: PDFWorkError, work: String) -> ProblemDetails {
        let retry: HTTPFields = [.retryAfter: "1"]
        switch error {
        case .deadlineExceeded(let deadline):
            return ProblemDetails(
                status: .unprocessableContent, type: "/problems/pdf-work-too-long", title: "PDF work too long",
                detail: "\(work) took longer than \(deadline); the work was stopped")
        case .workerCrashed(let how):
            return ProblemDetails(
                status: .unprocessableContent, type: "/problems/pdf-worker-crashed", title: "PDF worker crashed",
                detail: "the PDF worker stopped while \(work): \(how)")
        case .waitedTooLong(let deadline):
            return ProblemDetails(
                status: .serviceUnavailable, type: "/problems/pdf-workers-busy", title: "PDF workers busy",
                detail: "no PDF worker was free for \(work) within \(deadline)",
                headers: retry)
        case .queueFull:
            return ProblemDetails(
                status: .serviceUnavailable, type: "/problems/pdf-workers-busy", title: "PDF workers busy",
                detail: "too many PDF requests are waiting for \(work); try again shortly",
                headers: retry)
        case .unavailable(let reason):
            return ProblemDetails(
                status: .serviceUnavailable, type: "/problems/pdf-workers-busy", title: "PDF workers busy",
                detail: "no PDF worker could be started for \(work): \(reason)", headers: [.retryAfter: "5"])
        case .shutDown:
            return ProblemDetails(
                status: .serviceUnavailable, detail: "the service is stopping", headers: [.retryAfter: "5"])
        case .refused(let reply):
            switch reply.status {
            case .passwordRequired: return .passwordRequired(work, wrong: true)
            case .pageOutOfRange: return .notFound("\(work): no such page")
            case .invalidArgument: return .invalidParameter("dpi", reply.message)
            case .damaged, .failed, .succeeded: return .damagedPDF(work, reply.message)
            }
        }
    }

    /// 409: a file given for a new document already belongs to another one.
    static func fileInAnotherDocument(_ path: String, _ holder: DocumentID) -> ProblemDetails {
        ProblemDetails(
            status: .conflict, type: "/problems/file-in-another-document", title: "File already in a document",
            detail: "\(path) already belongs to document \(holder.rawValue); a file can be in one document only")
    }

    /// 422: a registered path is missing or is not a regular file.
    static func unusableFile(_ path: String, _ reason: String) -> ProblemDetails {
        ProblemDetails(
            status: .unprocessableContent, type: "/problems/unusable-file", title: "Unusable file",
            detail: "\(path): \(reason)")
    }

    /// 403: a registered path resolves outside every configured root.
    static func pathOutsideRoots(_ path: String) -> ProblemDetails {
        ProblemDetails(
            status: .forbidden, type: "/problems/path-outside-roots", title: "Path outside the roots",
            detail: "\(path) is not inside a directory the service may read (its configured roots)")
    }

    /// 404: the page does not exist.
    static func pageOutOfRange(_ number: Int, pageCount: Int) -> ProblemDetails {
        ProblemDetails(
            status: .notFound, type: "/problems/page-out-of-range", title: "No such page",
            detail: "page \(number) does not exist: the document has \(pageCount) pages")
    }

    /// 409: the document is in conflict (or otherwise cannot take the change now).
    static func documentInConflict(_ id: DocumentID, _ detail: String) -> ProblemDetails {
        ProblemDetails(
            status: .conflict, type: "/problems/document-in-conflict", title: "Document in conflict",
            detail: "document \(id.rawValue): \(detail)")
    }

    /// 409: a resolution was asked for a document without a conflict.
    static func noConflict(_ id: DocumentID) -> ProblemDetails {
        ProblemDetails(
            status: .conflict, type: "/problems/no-conflict", title: "No conflict",
            detail: "document \(id.rawValue) is not in conflict: there is nothing to resolve")
    }

    /// 415: the body's media type is not one the route takes.
    static func unsupportedMediaType(_ got: String?, expected: [String]) -> ProblemDetails {
        ProblemDetails(
            status: .unsupportedMediaType, type: "/problems/unsupported-media-type", title: "Unsupported media type",
            detail: "the body's Content-Type is \(got.map { "\"\($0)\"" } ?? "missing"); this route takes "
                + expected.joined(separator: " or "))
    }

    /// The problem for a document error of `what` (a file or an upload).
    static func opening(_ error: DocumentError, _ what: String, passwordGiven: Bool) -> ProblemDetails {
        switch error {
        case .pdf(let source, .encrypted):
            return .passwordRequired(source.isEmpty ? what : source, wrong: passwordGiven)
        case .pdf(let source, let pdfError):
            return .damagedPDF(source.isEmpty ? what : source, pdfError.description)
        case .fileNotFound(let source):
            return .unusableFile(source, "the file does not exist")
        case .unreadable(let source, let underlying):
            return .unusableFile(source, "cannot be read: \(underlying)")
        default:
            return .damagedPDF(what, error.description)
        }
    }
}
