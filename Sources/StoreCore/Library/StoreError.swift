import DocumentModel
import PDFTypes
import PDFWorkerWire

/// Why the store refused or failed an operation: the domain errors of ``DocumentLibrary`` and its uploads.
///
/// A struct with a stable ``code`` (as swift-nio's `FileSystemError` is), so that a kind of error added later
/// breaks no caller: compare ``code`` with a ``Code`` value, read what the error names through its properties
/// (``document``, ``parameter``, ``currentValidator``, ``retryAfter``), and make errors with the static functions
/// named after the codes (`throw StoreError.documentNotFound(id)`). ``description`` is one line for the person
/// reading the log (the service sends it as a problem's `detail`, in the API's own terms where the remedy is a
/// header to send or a route to call). Nothing here knows HTTP: the service maps every code to a problem in one
/// place.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the error is, with what it names: exhaustive inside the package (the service's one mapping to
    /// problems switches over it), never public, so that a new reason is not a breaking change.
    package enum Reason: Sendable, Equatable {
        /// No document has this id.
        case documentNotFound(DocumentID)
        /// The document has no kept version with this id.
        case versionNotFound(DocumentID, version: String)
        /// A parameter (of a path, a query or a body member) is out of range or malformed; `reason` says how.
        case invalidParameter(String, reason: String)
        /// The input as a whole is not what the operation takes (a patch that is not a JSON object, say).
        case invalidInput(String)
        /// `what` is an encrypted PDF and no password, or a wrong one (`wrongPassword`), was given.
        case passwordRequired(what: String, wrongPassword: Bool)
        /// `what` is not a PDF the store can open; `reason` is the PDF library's.
        case damagedPDF(what: String, reason: String)
        /// A file of the document is no longer a readable PDF (state `damaged`).
        case damagedDocument(DocumentID, DocumentDamage)
        /// A PDF worker process did not answer `work` ("rendering page 3 of document X") with a result.
        case pdfWorkFailed(PDFWorkError, work: String)
        /// A file given for a new document already belongs to document `holder`.
        case fileInAnotherDocument(path: String, holder: DocumentID)
        /// A file is missing, unreadable or not a regular file; `reason` says which.
        case unusableFile(path: String, reason: String)
        /// A path resolves outside every configured root.
        case pathOutsideRoots(String)
        /// The document has no page `number`.
        case pageOutOfRange(Int, pageCount: Int)
        /// The document is in conflict and cannot take the operation now; `reason` says what to do instead.
        case inConflict(DocumentID, reason: String)
        /// A resolution was asked for a document that is not in conflict.
        case noConflict(DocumentID)
        /// A write named no version to replace (``WritePrecondition`` without `ifMatch`).
        case preconditionRequired
        /// The write's ``WritePrecondition`` does not hold for the current version (`current`, nil when there is none).
        case preconditionFailed(current: EntityTag?)
        /// An upload is larger than the limit of `limit` bytes.
        case tooLarge(limit: Int)
        /// The uploads in flight already hold the store's budget of `budget` upload bytes.
        case uploadBudgetExhausted(budget: Int, retryAfterSeconds: Int)
        /// The store cannot serve the operation now (it is stopping, or another node holds the document);
        /// `retryAfterSeconds` is set when trying again soon is worth it.
        case unavailable(String, retryAfterSeconds: Int?)
        /// The uploaded file of document `id` could not be removed, so the document was not closed.
        case fileNotRemoved(DocumentID, reason: String)
        /// An operation failed for a reason the caller cannot fix (a file the store wrote cannot be read back, a save
        /// failed); `reason` names it.
        case internalFailure(String)
    }

    /// The kind of an error: stable, comparable, and open to new kinds.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as the static property that makes it is named (`documentNotFound`).
        public let name: String

        private init(_ name: String) { self.name = name }

        /// The code's name.
        public var description: String { name }

        /// No document has this id.
        public static let documentNotFound = Code("documentNotFound")
        /// The document has no kept version with this id.
        public static let versionNotFound = Code("versionNotFound")
        /// A parameter (of a path, a query or a body member) is out of range or malformed; `reason` says how.
        public static let invalidParameter = Code("invalidParameter")
        /// The input as a whole is not what the operation takes (a patch that is not a JSON object, say).
        public static let invalidInput = Code("invalidInput")
        /// `what` is an encrypted PDF and no password, or a wrong one (`wrongPassword`), was given.
        public static let passwordRequired = Code("passwordRequired")
        /// `what` is not a PDF the store can open; `reason` is the PDF library's.
        public static let damagedPDF = Code("damagedPDF")
        /// A file of the document is no longer a readable PDF (state `damaged`).
        public static let damagedDocument = Code("damagedDocument")
        /// A PDF worker process did not answer `work` ("rendering page 3 of document X") with a result.
        public static let pdfWorkFailed = Code("pdfWorkFailed")
        /// A file given for a new document already belongs to document `holder`.
        public static let fileInAnotherDocument = Code("fileInAnotherDocument")
        /// A file is missing, unreadable or not a regular file; `reason` says which.
        public static let unusableFile = Code("unusableFile")
        /// A path resolves outside every configured root.
        public static let pathOutsideRoots = Code("pathOutsideRoots")
        /// The document has no page `number`.
        public static let pageOutOfRange = Code("pageOutOfRange")
        /// The document is in conflict and cannot take the operation now; `reason` says what to do instead.
        public static let inConflict = Code("inConflict")
        /// A resolution was asked for a document that is not in conflict.
        public static let noConflict = Code("noConflict")
        /// A write named no version to replace (``WritePrecondition`` without `ifMatch`).
        public static let preconditionRequired = Code("preconditionRequired")
        /// The write's ``WritePrecondition`` does not hold for the current version (`current`, nil when there is none).
        public static let preconditionFailed = Code("preconditionFailed")
        /// An upload is larger than the limit of `limit` bytes.
        public static let tooLarge = Code("tooLarge")
        /// The uploads in flight already hold the store's budget of `budget` upload bytes.
        public static let uploadBudgetExhausted = Code("uploadBudgetExhausted")
        /// The store cannot serve the operation now (it is stopping, or another node holds the document);
        /// `retryAfterSeconds` is set when trying again soon is worth it.
        public static let unavailable = Code("unavailable")
        /// The uploaded file of document `id` could not be removed, so the document was not closed.
        public static let fileNotRemoved = Code("fileNotRemoved")
        /// An operation failed for a reason the caller cannot fix (a file the store wrote cannot be read back, a save
        /// failed); `reason` names it.
        public static let internalFailure = Code("internalFailure")
    }

    /// What the error is and names.
    package let reason: Reason

    /// An error for `reason`.
    package init(_ reason: Reason) { self.reason = reason }

    /// The error's kind.
    public var code: Code {
        switch reason {
        case .documentNotFound: return .documentNotFound
        case .versionNotFound: return .versionNotFound
        case .invalidParameter: return .invalidParameter
        case .invalidInput: return .invalidInput
        case .passwordRequired: return .passwordRequired
        case .damagedPDF: return .damagedPDF
        case .damagedDocument: return .damagedDocument
        case .pdfWorkFailed: return .pdfWorkFailed
        case .fileInAnotherDocument: return .fileInAnotherDocument
        case .unusableFile: return .unusableFile
        case .pathOutsideRoots: return .pathOutsideRoots
        case .pageOutOfRange: return .pageOutOfRange
        case .inConflict: return .inConflict
        case .noConflict: return .noConflict
        case .preconditionRequired: return .preconditionRequired
        case .preconditionFailed: return .preconditionFailed
        case .tooLarge: return .tooLarge
        case .uploadBudgetExhausted: return .uploadBudgetExhausted
        case .unavailable: return .unavailable
        case .fileNotRemoved: return .fileNotRemoved
        case .internalFailure: return .internalFailure
        }
    }

    /// No document has this id.
    public static func documentNotFound(_ id: DocumentID) -> StoreError { StoreError(.documentNotFound(id)) }

    /// The document has no kept version with this id.
    public static func versionNotFound(_ id: DocumentID, version: String) -> StoreError {
        StoreError(.versionNotFound(id, version: version))
    }

    /// A parameter (of a path, a query or a body member) is out of range or malformed; `reason` says how.
    public static func invalidParameter(_ name: String, reason: String) -> StoreError {
        StoreError(.invalidParameter(name, reason: reason))
    }

    /// The input as a whole is not what the operation takes (a patch that is not a JSON object, say).
    public static func invalidInput(_ reason: String) -> StoreError { StoreError(.invalidInput(reason)) }

    /// `what` is an encrypted PDF and no password, or a wrong one (`wrongPassword`), was given.
    public static func passwordRequired(what: String, wrongPassword: Bool) -> StoreError {
        StoreError(.passwordRequired(what: what, wrongPassword: wrongPassword))
    }

    /// `what` is not a PDF the store can open; `reason` is the PDF library's.
    public static func damagedPDF(what: String, reason: String) -> StoreError {
        StoreError(.damagedPDF(what: what, reason: reason))
    }

    /// A file of the document is no longer a readable PDF (state `damaged`).
    public static func damagedDocument(_ id: DocumentID, _ damage: DocumentDamage) -> StoreError {
        StoreError(.damagedDocument(id, damage))
    }

    /// A PDF worker process did not answer `work` ("rendering page 3 of document X") with a result.
    public static func pdfWorkFailed(_ failure: PDFWorkError, work: String) -> StoreError {
        StoreError(.pdfWorkFailed(failure, work: work))
    }

    /// A file given for a new document already belongs to document `holder`.
    public static func fileInAnotherDocument(path: String, holder: DocumentID) -> StoreError {
        StoreError(.fileInAnotherDocument(path: path, holder: holder))
    }

    /// A file is missing, unreadable or not a regular file; `reason` says which.
    public static func unusableFile(path: String, reason: String) -> StoreError {
        StoreError(.unusableFile(path: path, reason: reason))
    }

    /// A path resolves outside every configured root.
    public static func pathOutsideRoots(_ path: String) -> StoreError { StoreError(.pathOutsideRoots(path)) }

    /// The document has no page `number`.
    public static func pageOutOfRange(_ number: Int, pageCount: Int) -> StoreError {
        StoreError(.pageOutOfRange(number, pageCount: pageCount))
    }

    /// The document is in conflict and cannot take the operation now; `reason` says what to do instead.
    public static func inConflict(_ id: DocumentID, reason: String) -> StoreError {
        StoreError(.inConflict(id, reason: reason))
    }

    /// A resolution was asked for a document that is not in conflict.
    public static func noConflict(_ id: DocumentID) -> StoreError { StoreError(.noConflict(id)) }

    /// A write named no version to replace (``WritePrecondition`` without `ifMatch`).
    public static var preconditionRequired: StoreError { StoreError(.preconditionRequired) }

    /// The write's ``WritePrecondition`` does not hold for the current version (`current`, nil when there is none).
    public static func preconditionFailed(current: EntityTag?) -> StoreError {
        StoreError(.preconditionFailed(current: current))
    }

    /// An upload is larger than the limit of `limit` bytes.
    public static func tooLarge(limit: Int) -> StoreError { StoreError(.tooLarge(limit: limit)) }

    /// The uploads in flight already hold the store's budget of `budget` upload bytes.
    public static func uploadBudgetExhausted(budget: Int, retryAfterSeconds: Int) -> StoreError {
        StoreError(.uploadBudgetExhausted(budget: budget, retryAfterSeconds: retryAfterSeconds))
    }

    /// The store cannot serve the operation now (it is stopping, or another node holds the document);
    /// `retryAfterSeconds` is set when trying again soon is worth it.
    public static func unavailable(_ reason: String, retryAfterSeconds: Int?) -> StoreError {
        StoreError(.unavailable(reason, retryAfterSeconds: retryAfterSeconds))
    }

    /// The uploaded file of document `id` could not be removed, so the document was not closed.
    public static func fileNotRemoved(_ id: DocumentID, reason: String) -> StoreError {
        StoreError(.fileNotRemoved(id, reason: reason))
    }

    /// An operation failed for a reason the caller cannot fix (a file the store wrote cannot be read back, a save
    /// failed); `reason` names it.
    public static func internalFailure(_ reason: String) -> StoreError { StoreError(.internalFailure(reason)) }

    /// The error for `error`, a document error of `what` (a file or an upload) that a password given or not
    /// (`passwordGiven`) did not open.
    public static func opening(_ error: DocumentError, _ what: String, passwordGiven: Bool) -> StoreError {
        switch error {
        case .pdf(let source, .encrypted):
            return .passwordRequired(what: source.isEmpty ? what : source, wrongPassword: passwordGiven)
        case .pdf(let source, let pdfError):
            return .damagedPDF(what: source.isEmpty ? what : source, reason: pdfError.description)
        case .fileNotFound(let source):
            return .unusableFile(path: source, reason: "the file does not exist")
        case .unreadable(let source, let underlying):
            return .unusableFile(path: source, reason: "cannot be read: \(underlying)")
        default:
            return .damagedPDF(what: what, reason: error.description)
        }
    }

    /// The store's error for a PDF worker's `failure` of `work` ("rendering page 3 of document X"), decided once,
    /// where the work was asked for: a refusal becomes the domain error it means (a password, damage; a bad
    /// argument names `parameter`, the request's parameter that carried it, or is an invalid input when no
    /// parameter of the request did); anything else, and a worker's "no such page", is ``pdfWorkFailed(_:work:)``.
    public static func pdfWork(_ failure: PDFWorkError, work: String, parameter: String? = nil) -> StoreError {
        guard case .refused(let reply) = failure else { return .pdfWorkFailed(failure, work: work) }
        switch reply.status {
        case .passwordRequired: return .passwordRequired(what: work, wrongPassword: true)
        case .pageOutOfRange: return .pdfWorkFailed(failure, work: work)  // the one refusal kept as such: 404
        case .invalidArgument:
            guard let parameter else { return .invalidInput("\(work): \(reply.message)") }
            return .invalidParameter(parameter, reason: reply.message)
        case .damaged, .failed, .succeeded: return .damagedPDF(what: work, reason: reply.message)
        }
    }

    /// The document the error is about, when it names one.
    public var document: DocumentID? {
        switch reason {
        case .documentNotFound(let id), .versionNotFound(let id, _), .damagedDocument(let id, _), .inConflict(let id, _),
            .noConflict(let id), .fileNotRemoved(let id, _):
            return id
        case .fileInAnotherDocument(_, let holder): return holder
        default: return nil
        }
    }

    /// The parameter at fault (of a path, a query or a body member: `limit`, `rect.width`), for
    /// ``Code/invalidParameter``.
    public var parameter: String? {
        guard case .invalidParameter(let name, _) = reason else { return nil }
        return name
    }

    /// The document's validator now, for ``Code/preconditionFailed`` (nil when the service did not say or the
    /// document is gone).
    public var currentValidator: EntityTag? {
        guard case .preconditionFailed(let current) = reason else { return nil }
        return current
    }

    /// The file the error is about, when it names one.
    public var path: String? {
        switch reason {
        case .fileInAnotherDocument(let path, _), .unusableFile(let path, _), .pathOutsideRoots(let path): return path
        default: return nil
        }
    }

    /// How long to wait before trying again, for a refusal for want of capacity (workers busy, uploads in flight,
    /// a document held by another node); nil when trying again would not help.
    public var retryAfter: Duration? {
        switch reason {
        case .uploadBudgetExhausted(_, let seconds): return .seconds(seconds)
        case .unavailable(_, let seconds): return seconds.map { .seconds($0) }
        case .pdfWorkFailed(let failure, _):
            switch failure {
            case .waitedTooLong, .queueFull: return .seconds(1)
            case .unavailable, .shutDown: return .seconds(5)
            case .deadlineExceeded, .workerCrashed, .refused: return nil
            }
        case .documentNotFound, .versionNotFound, .invalidParameter, .invalidInput, .passwordRequired, .damagedPDF,
            .damagedDocument, .fileInAnotherDocument, .unusableFile, .pathOutsideRoots, .pageOutOfRange, .inConflict,
            .noConflict, .preconditionRequired, .preconditionFailed, .tooLarge, .fileNotRemoved, .internalFailure:
            return nil
        }
    }

    /// One line naming what failed and, where it helps, what to do.
    public var description: String {
        switch reason {
        case .documentNotFound(let id):
            return "no document has the id \(id.rawValue)"
        case .versionNotFound(let id, let version):
            return "document \(id.rawValue) has no version \"\(version.prefix(80))\" (its versions list names the "
                + "versions kept)"
        case .invalidParameter(_, let reason), .invalidInput(let reason), .unavailable(let reason, _),
            .internalFailure(let reason):
            return reason
        case .passwordRequired(let what, let wrong):
            return wrong
                ? "\(what) is encrypted and the password given does not open it"
                : "\(what) is encrypted: its password is needed"
        case .damagedPDF(let what, let reason):
            return "\(what): \(reason)"
        case .damagedDocument(let id, let damage):
            return "document \(id.rawValue) is damaged: \(damage.reason); it is served again once the file is a "
                + "readable PDF"
        case .pdfWorkFailed(let failure, let work):
            return Self.describe(failure, work: work)
        case .fileInAnotherDocument(let path, let holder):
            return "\(path) already belongs to document \(holder.rawValue); a file can be in one document only"
        case .unusableFile(let path, let reason):
            return "\(path): \(reason)"
        case .pathOutsideRoots(let path):
            return "\(path) is not inside a directory the service may read (its configured roots)"
        case .pageOutOfRange(let number, let pageCount):
            return "page \(number) does not exist: the document has \(pageCount) pages"
        case .inConflict(let id, let reason):
            return "document \(id.rawValue): \(reason)"
        case .noConflict(let id):
            return "document \(id.rawValue) is not in conflict: there is nothing to resolve"
        case .preconditionRequired:
            return "the write names no version to replace: name the version last read (or any) so that a change "
                + "made since is not overwritten"
        case .preconditionFailed:
            return "the document is not at a version the write names: it changed since"
        case .tooLarge(let limit):
            return "the request body is larger than the limit of \(limit) bytes"
        case .uploadBudgetExhausted(let budget, let seconds):
            return "the uploads in flight already hold the service's budget of \(budget) bytes: try again in "
                + "\(seconds) seconds"
        case .fileNotRemoved(let id, let reason):
            return "document \(id.rawValue) was not closed: its uploaded file could not be removed (\(reason)); the "
                + "document stays in the store, try the resolution again"
        }
    }

    /// The description of a worker's failure to do `work`.
    private static func describe(_ failure: PDFWorkError, work: String) -> String {
        switch failure {
        case .deadlineExceeded(let deadline):
            return "\(work) took longer than \(deadline); the work was stopped"
        case .workerCrashed(let how):
            return "the PDF worker stopped while \(work): \(how)"
        case .waitedTooLong(let deadline):
            return "no PDF worker was free for \(work) within \(deadline)"
        case .queueFull:
            return "too many PDF requests are waiting for \(work); try again shortly"
        case .unavailable(let reason):
            return "no PDF worker could be started for \(work): \(reason)"
        case .shutDown:
            return "the service is stopping"
        case .refused(let reply):
            return reply.status == .pageOutOfRange ? "\(work): no such page" : "\(work): \(reply.message)"
        }
    }
}
