import DocumentStore
import Foundation
import HTTPTypes
import PDFWorkerWire
import Testing

/// The one mapping of the store's domain errors to problem details: every case's status, `type`, title,
/// `Retry-After` and the headers and members its status needs.
@Suite("Store errors as problem details")
struct StoreErrorProblemTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let error: StoreError
        let status: HTTPResponse.Status
        let type: String
        let title: String
        let retryAfter: String?
        var testDescription: String { "\(status.code) \(type): \(error)" }
    }

    static let id = DocumentID(rawValue: "doc-1")!
    static let tag = EntityTag(content: Data("v1".utf8))

    static let rows: [Row] = [
        Row(error: .documentNotFound(id), status: .notFound, type: "about:blank", title: "Not Found", retryAfter: nil),
        Row(
            error: .versionNotFound(id, version: "v9"), status: .notFound, type: "/problems/version-not-found",
            title: "No such version", retryAfter: nil),
        Row(
            error: .invalidParameter("dpi", reason: "dpi must be from 1 to 600"), status: .badRequest,
            type: "/problems/invalid-parameter", title: "Invalid parameter", retryAfter: nil),
        Row(
            error: .invalidInput("not an object"), status: .badRequest, type: "about:blank", title: "Bad Request",
            retryAfter: nil),
        Row(
            error: .passwordRequired(what: "document doc-1", wrongPassword: false), status: .unauthorized,
            type: "/problems/password-required", title: "Password required", retryAfter: nil),
        Row(
            error: .damagedPDF(what: "the uploaded PDF", reason: "no xref"), status: .unprocessableContent,
            type: "/problems/damaged-pdf", title: "Damaged PDF", retryAfter: nil),
        Row(
            error: .damagedDocument(id, .init(file: "a.pdf", reason: "truncated")), status: .unprocessableContent,
            type: "/problems/damaged-document", title: "Damaged document", retryAfter: nil),
        Row(
            error: .pdfWorkFailed(.deadlineExceeded(.seconds(10)), work: "rendering"), status: .unprocessableContent,
            type: "/problems/pdf-work-too-long", title: "PDF work too long", retryAfter: nil),
        Row(
            error: .pdfWorkFailed(.workerCrashed("signal 9"), work: "rendering"), status: .unprocessableContent,
            type: "/problems/pdf-worker-crashed", title: "PDF worker crashed", retryAfter: nil),
        Row(
            error: .pdfWorkFailed(.waitedTooLong(.seconds(10)), work: "rendering"), status: .serviceUnavailable,
            type: "/problems/pdf-workers-busy", title: "PDF workers busy", retryAfter: "1"),
        Row(
            error: .pdfWorkFailed(.queueFull, work: "rendering"), status: .serviceUnavailable,
            type: "/problems/pdf-workers-busy", title: "PDF workers busy", retryAfter: "1"),
        Row(
            error: .pdfWorkFailed(.unavailable("fork failed"), work: "rendering"), status: .serviceUnavailable,
            type: "/problems/pdf-workers-busy", title: "PDF workers busy", retryAfter: "5"),
        Row(
            error: .pdfWorkFailed(.shutDown, work: "rendering"), status: .serviceUnavailable, type: "about:blank",
            title: "Service Unavailable", retryAfter: "5"),
        Row(
            error: .pdfWorkFailed(.refused(reply(.pageOutOfRange)), work: "rendering"), status: .notFound,
            type: "about:blank", title: "Not Found", retryAfter: nil),
        Row(
            error: .pdfWork(.refused(reply(.pageOutOfRange)), work: "rendering"), status: .notFound,
            type: "about:blank", title: "Not Found", retryAfter: nil),
        Row(
            error: .pdfWork(.refused(reply(.passwordRequired)), work: "rendering"), status: .unauthorized,
            type: "/problems/password-required", title: "Password required", retryAfter: nil),
        Row(
            error: .pdfWork(.refused(reply(.invalidArgument)), work: "rendering", parameter: "dpi"),
            status: .badRequest, type: "/problems/invalid-parameter", title: "Invalid parameter", retryAfter: nil),
        Row(
            error: .pdfWork(.refused(reply(.invalidArgument)), work: "saving"), status: .badRequest,
            type: "about:blank", title: "Bad Request", retryAfter: nil),
        Row(
            error: .pdfWork(.refused(reply(.damaged)), work: "rendering"), status: .unprocessableContent,
            type: "/problems/damaged-pdf", title: "Damaged PDF", retryAfter: nil),
        Row(
            error: .pdfWork(.deadlineExceeded(.seconds(10)), work: "rendering"), status: .unprocessableContent,
            type: "/problems/pdf-work-too-long", title: "PDF work too long", retryAfter: nil),
        Row(
            error: .fileInAnotherDocument(path: "/r/a.pdf", holder: id), status: .conflict,
            type: "/problems/file-in-another-document", title: "File already in a document", retryAfter: nil),
        Row(
            error: .unusableFile(path: "/r/a.pdf", reason: "the file does not exist"), status: .unprocessableContent,
            type: "/problems/unusable-file", title: "Unusable file", retryAfter: nil),
        Row(
            error: .pathOutsideRoots("/etc/passwd"), status: .forbidden, type: "/problems/path-outside-roots",
            title: "Path outside the roots", retryAfter: nil),
        Row(
            error: .pageOutOfRange(4, pageCount: 3), status: .notFound, type: "/problems/page-out-of-range",
            title: "No such page", retryAfter: nil),
        Row(
            error: .inConflict(id, reason: "resolve its conflict first"), status: .conflict,
            type: "/problems/document-in-conflict", title: "Document in conflict", retryAfter: nil),
        Row(
            error: .noConflict(id), status: .conflict, type: "/problems/no-conflict", title: "No conflict",
            retryAfter: nil),
        Row(
            error: .preconditionRequired, status: .preconditionRequired, type: "/problems/if-match-required",
            title: "If-Match required", retryAfter: nil),
        Row(
            error: .preconditionFailed(current: tag), status: .preconditionFailed,
            type: "/problems/precondition-failed", title: "Precondition failed", retryAfter: nil),
        Row(
            error: .tooLarge(limit: 10), status: .contentTooLarge, type: "/problems/content-too-large",
            title: "Content too large", retryAfter: nil),
        Row(
            error: .uploadBudgetExhausted(budget: 100, retryAfterSeconds: 5), status: .serviceUnavailable,
            type: "/problems/upload-budget-exhausted", title: "Too many uploads", retryAfter: "5"),
        Row(
            error: .unavailable("the service is stopping", retryAfterSeconds: nil), status: .serviceUnavailable,
            type: "about:blank", title: "Service Unavailable", retryAfter: nil),
        Row(
            error: .unavailable("the document is busy on another node", retryAfterSeconds: 1),
            status: .serviceUnavailable, type: "about:blank", title: "Service Unavailable", retryAfter: "1"),
        Row(
            error: .fileNotRemoved(id, reason: "permission denied"), status: .internalServerError,
            type: "/problems/file-not-removed", title: "File not removed", retryAfter: nil),
        Row(
            error: .internalFailure("saving failed: disk full"), status: .internalServerError, type: "about:blank",
            title: "Internal Server Error", retryAfter: nil),
    ]

    static func reply(_ status: PDFWorkerReply.Status) -> PDFWorkerReply {
        PDFWorkerReply(status: status, message: "the worker's message")
    }

    @Test("each domain error has its status, type, title and Retry-After", arguments: rows)
    func mapping(_ row: Row) {
        let problem = ProblemDetails(row.error)
        #expect(problem.status == row.status)
        #expect(problem.type == row.type)
        #expect(problem.title == row.title)
        #expect(problem.headers[.retryAfter] == row.retryAfter)
        #expect(problem.detail?.isEmpty == false)
    }

    @Test("an error is a struct with a stable code: each maker's error has the code of its name, codes compare, and what the error names is read through properties", arguments: rows)
    func codes(_ row: Row) {
        let error = row.error
        // The code's name is the name of the static function or property that makes such an error.
        let maker = String(describing: error.reason).prefix { $0.isLetter || $0.isNumber }
        #expect(error.code.name == String(maker))
        #expect(error.code == error.code && "\(error.code)" == error.code.name)
    }

    @Test("what an error names: its document, parameter, current validator and file")
    func namedParts() {
        #expect(StoreError.documentNotFound(Self.id).document == Self.id)
        #expect(StoreError.fileInAnotherDocument(path: "/r/a.pdf", holder: Self.id).document == Self.id)
        #expect(StoreError.fileInAnotherDocument(path: "/r/a.pdf", holder: Self.id).path == "/r/a.pdf")
        #expect(StoreError.invalidParameter("limit", reason: "1 to 1000").parameter == "limit")
        #expect(StoreError.invalidParameter("limit", reason: "1 to 1000").code == .invalidParameter)
        #expect(StoreError.invalidInput("x").parameter == nil)
        #expect(StoreError.preconditionFailed(current: Self.tag).currentValidator == Self.tag)
        #expect(StoreError.preconditionRequired.code == .preconditionRequired)
        let required = StoreError.preconditionRequired
        #expect(required.currentValidator == nil && required.document == nil)
        // A worker's refusal of a bad argument comes out as the request's parameter, by code and name.
        let refused = StoreError.pdfWork(.refused(Self.reply(.invalidArgument)), work: "rendering", parameter: "dpi")
        #expect(refused.code == .invalidParameter && refused.parameter == "dpi")
        #expect(refused != StoreError.invalidParameter("scale", reason: "the worker's message"))
    }

    @Test("the detail is the error's description, or the refusal's for a worker that refused")
    func detail() {
        let error = StoreError.pageOutOfRange(4, pageCount: 3)
        #expect(ProblemDetails(error).detail == "page 4 does not exist: the document has 3 pages")
        let refused = StoreError.pdfWork(.refused(Self.reply(.damaged)), work: "rendering page 1")
        #expect(ProblemDetails(refused).detail == "rendering page 1: the worker's message")
        let input = StoreError.pdfWork(.refused(Self.reply(.invalidArgument)), work: "saving document d")
        #expect(input == .invalidInput("saving document d: the worker's message"))
        #expect(ProblemDetails(input).extensionMembers["parameter"] == nil)
        let noPage = StoreError.pdfWorkFailed(.refused(Self.reply(.pageOutOfRange)), work: "rendering page 9")
        #expect(ProblemDetails(noPage).detail == "rendering page 9: no such page")
    }

    @Test("a 412 carries the current tag; a 401 the Document-Password challenge; 400 and 413 their members")
    func headersAndMembers() {
        let failed = ProblemDetails(.preconditionFailed(current: Self.tag))
        #expect(failed.headers[.eTag] == Self.tag.headerValue)
        #expect(failed.extensionMembers["etag"] == Self.tag.headerValue)
        let gone = ProblemDetails(.preconditionFailed(current: nil))
        #expect(gone.headers[.eTag] == nil && gone.extensionMembers.isEmpty)
        let password = ProblemDetails(.passwordRequired(what: "document doc-1", wrongPassword: true))
        #expect(password.headers[.wwwAuthenticate] == #"Document-Password realm="quire""#)
        #expect(password.detail?.contains("does not open it") == true)
        #expect(ProblemDetails(.invalidParameter("rect.x", reason: "x")).extensionMembers == ["parameter": "rect.x"])
        #expect(ProblemDetails(.tooLarge(limit: 10)).extensionMembers == ["limit": "10"])
        #expect(ProblemDetails(.uploadBudgetExhausted(budget: 7, retryAfterSeconds: 5)).extensionMembers == ["budget": "7"])
    }
}
