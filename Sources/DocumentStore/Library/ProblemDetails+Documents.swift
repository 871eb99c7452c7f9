import Documents
import HTTPTypes
import Poppler

/// The document-specific problems of `openapi.yaml`.
extension ProblemDetails {
    /// 404: no document has this id.
    static func documentNotFound(_ id: DocumentID) -> ProblemDetails {
        .notFound("no document has the id \(id.rawValue)")
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
