import Foundation
import PDFTypes

/// What kind of conflict a document's file is in.
public enum FileConflictType: String, Sendable, Hashable {
    /// The file was deleted while the document was open.
    case deletion
    /// The file's content was changed by someone else while the document had unsaved changes.
    case modification
}

/// How to resolve a conflict.
public enum FileConflictResolution: String, Sendable, Hashable {
    /// Give up the document (for a deletion, the usual choice).
    case close
    /// Write the document's state over the file, overriding the other change; restores a deleted file.
    case save
    /// Drop local changes and read the file again (not possible for a deleted file).
    case reload
}

/// A conflict between a document and one of its files.
public struct FileConflict: Sendable {
    /// Deletion or modification.
    public let type: FileConflictType
    /// The provider whose file is in conflict.
    public let dataProvider: any CoordinatedFileDataProviding
}

/// One change of a document's file made by someone else (another process, another document, or a program
/// that does not coordinate).
public struct UnderlyingFileChange: Sendable {
    /// The file (its current place).
    public let fileURL: URL
    /// The provider of that file.
    public let dataProvider: any CoordinatedFileDataProviding
    /// True when the file is being (or was) deleted.
    public let isDeletion: Bool
}

/// A document's Info-dictionary metadata.
public struct DocumentMetadata: Sendable, Equatable {
    /// The title, author, subject, keywords, creating application and producing library.
    public var title, author, subject, keywords, creator, producer: String?
    /// When the document was created and last modified (whole seconds are kept).
    public var creationDate, modificationDate: Date?

    /// Makes metadata; every field defaults to absent.
    public init(
        title: String? = nil, author: String? = nil, subject: String? = nil, keywords: String? = nil,
        creator: String? = nil, producer: String? = nil, creationDate: Date? = nil, modificationDate: Date? = nil
    ) {
        self.title = title
        self.author = author
        self.subject = subject
        self.keywords = keywords
        self.creator = creator
        self.producer = producer
        self.creationDate = creationDate
        self.modificationDate = modificationDate
    }

    /// The same entries as a poppler `PDFMetadata`.
    init(_ metadata: PDFMetadata) {
        self.init(
            title: metadata.title, author: metadata.author, subject: metadata.subject, keywords: metadata.keywords,
            creator: metadata.creator, producer: metadata.producer, creationDate: metadata.creationDate,
            modificationDate: metadata.modificationDate)
    }

    /// The same entries as a poppler `PDFMetadata`.
    var pdfMetadata: PDFMetadata {
        PDFMetadata(
            title: title, author: author, subject: subject, keywords: keywords, creator: creator, producer: producer,
            creationDate: creationDate, modificationDate: modificationDate)
    }
}

/// An annotation to add to a page: a note or a highlight.
public struct Annotation: Sendable {
    /// The kinds that can be added.
    public enum Kind: Sendable {
        /// A note (a "sticky note", PDF `/Text`).
        case note
        /// A highlight (PDF `/Highlight`).
        case highlight
    }

    /// Note or highlight.
    public var kind: Kind
    /// Where it goes: points, PDF page space (origin bottom-left).
    public var rect: CGRect
    /// Its text.
    public var contents: String

    /// Makes an annotation.
    public init(kind: Kind, rect: CGRect, contents: String) {
        self.kind = kind
        self.rect = rect
        self.contents = contents
    }
}

/// A page of a document: its size, label, and where it comes from.
public struct PageInfo: Sendable {
    /// The page's index in the document (all providers' pages concatenated).
    public let index: Int
    /// Width and height in points.
    public let size: CGSize
    /// The page label (such as "iv"), if the PDF defines one.
    public let label: String?
    /// The provider the page comes from.
    public let dataProvider: any DataProviding
    /// The page's index within its provider's PDF.
    public let relativeIndex: Int
}

extension Notification.Name {
    /// Posted (asynchronously, on a private serial queue of the document, with the document as `object`) each
    /// time one of a document's files is changed or deleted by someone other than the document itself.
    /// userInfo: `"changedFileURL"` (URL), `"dataProvider"` (``CoordinatedFileDataProviding``),
    /// `"deleteFile"` (Bool, true for a deletion). See ``Document/UserInfoKey``.
    public static let documentUnderlyingFileChanged = Notification.Name("QuireDocumentUnderlyingFileChanged")

    /// Posted by a ``CoordinatedFileDataProvider`` (as `object`) when its ``FileDataProvider/fileURL`` changed
    /// because the file was moved: the KVO-style change of Nutrient's providers. userInfo: `"oldURL"` and
    /// `"newURL"` (URL).
    public static let dataProviderFileURLDidChange = Notification.Name("QuireDataProviderFileURLDidChange")
}
