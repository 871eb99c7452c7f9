import PDFTypes

/// An error of a ``Document``. Every case that concerns a file names it (`source` is the file's path, or the
/// uid of a provider that has no file).
public enum DocumentError: Error, Sendable, CustomStringConvertible {
    /// The provider's file does not exist (or was deleted).
    case fileNotFound(source: String)
    /// The provider's bytes could not be read: permissions, I/O, or coordination (`underlying` says which).
    case unreadable(source: String, underlying: any Error)
    /// The bytes are not a usable PDF, a password is needed, or poppler failed on a page (`PDFError` says which).
    case pdf(source: String, PDFError)
    /// No page has this index; the document has `pageCount` pages.
    case pageOutOfRange(Int, pageCount: Int)
    /// The provider cannot be written (it is not a ``WritableDataProviding``).
    case notWritable(source: String)
    /// The file is in conflict: resolve it with ``Document/resolveFileConflict(for:with:)`` first.
    case unresolvedConflict(FileConflictType, source: String)
    /// Writing the document's bytes failed; the file on disk is unchanged.
    case saveFailed(source: String, underlying: any Error)
    /// The losing side of a conflict could not be kept as a conflict version, so the resolution was not made
    /// (nothing was reloaded or written); `underlying` says why (the PDF could not be serialized, the file could
    /// not be read, the versions store could not be written).
    case versionNotKept(source: String, underlying: any Error)
    /// The provider is not one of this document's.
    case unknownDataProvider(String)
    /// The document was closed (a `.close` resolution).
    case closed

    /// A one-line message: what failed, on which file, and what to do.
    public var description: String {
        switch self {
        case .fileNotFound(let source):
            return "\(source): the file does not exist (it may have been deleted or moved)"
        case .unreadable(let source, let underlying):
            return "\(source): cannot be read: \(underlying)"
        case .pdf(let source, let error):
            return "\(source): \(error)"
        case .pageOutOfRange(let index, let pageCount):
            return "page index \(index) is out of range: the document has \(pageCount) pages"
        case .notWritable(let source):
            return "\(source): this data provider cannot be written"
        case .unresolvedConflict(let type, let source):
            let what =
                type == .deletion
                ? "was deleted" : "was changed by someone else while this document had unsaved changes"
            return "\(source): the file \(what); resolve the conflict (reload, save or close) first"
        case .saveFailed(let source, let underlying):
            return "\(source): saving failed, the file is unchanged: \(underlying)"
        case .versionNotKept(let source, let underlying):
            return "\(source): the conflict was not resolved, because the side it drops could not be kept as a "
                + "version: \(underlying) (check the versions store, or set the document's versionStore to nil)"
        case .unknownDataProvider(let uid):
            return "data provider \(uid) is not part of this document"
        case .closed:
            return "the document was closed"
        }
    }

    /// Wraps a provider or poppler failure as the document error for `source`.
    static func from(_ error: any Error, source: String) -> DocumentError {
        switch error {
        case let error as DocumentError: return error
        case let error as PDFError: return .pdf(source: source, error)
        case let error as DataProviderError where error.isFileMissing: return .fileNotFound(source: source)
        default: return .unreadable(source: source, underlying: error)
        }
    }
}
