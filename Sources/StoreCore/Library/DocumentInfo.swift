import DocumentModel
import Foundation

/// What the store knows of one document: its version, pages, metadata (with unsaved edits), files, state and
/// conflict, as ``DocumentLibrary/info(_:password:)`` returns it and every write answers with it.
public struct DocumentInfo: Sendable, Equatable {
    /// One page: its number, size and label.
    public struct Page: Sendable, Equatable {
        /// The page number, from 1.
        public var number: Int
        /// Width and height in points.
        public var width, height: Double
        /// The page label, if the PDF defines one.
        public var label: String?

        /// Makes the facts of page `number`.
        public init(number: Int, width: Double, height: Double, label: String?) {
            self.number = number
            self.width = width
            self.height = height
            self.label = label
        }
    }

    /// One file of the document, as last measured.
    public struct File: Sendable, Equatable {
        /// The absolute path (it follows moves).
        public var path: String
        /// Its size in bytes.
        public var size: Int
        /// The tag of its content (the tag of no bytes for a file that could not be read).
        public var tag: EntityTag

        /// Makes the facts of the file at `path`.
        public init(path: String, size: Int, tag: EntityTag) {
            self.path = path
            self.size = size
            self.tag = tag
        }
    }

    /// The document's id.
    public var id: DocumentID
    /// The document's validator: its content's tag and version (``DocumentRecord/validator``); it changes with
    /// every change of the document, and a write names it in its ``WritePrecondition``.
    public var validator: EntityTag
    /// The document's version: 1 when it entered the store, one more with every change.
    public var version: Int64
    /// The tag of the document's content (its bytes' SHA-256, or the combination of its files' tags).
    public var contentTag: EntityTag
    /// How the document entered the store.
    public var origin: DocumentRecord.Origin
    /// Every page's number, size and label.
    public var pages: [Page]
    /// The first file's metadata (with unsaved edits).
    public var metadata: DocumentMetadata
    /// The files, in page order.
    public var files: [File]
    /// The document's state.
    public var state: DocumentState
    /// The conflict the document is in (a deleted document's is a deletion), or nil.
    public var conflict: DocumentState.ConflictType?
    /// Why the document is damaged (which file, what is wrong with it), or nil.
    public var damage: DocumentDamage?
    /// Whether a file is encrypted.
    public var isEncrypted: Bool
    /// Bytes of all files together.
    public var size: Int
    /// When the document entered the store.
    public var createdAt: Date
    /// When the document last changed.
    public var updatedAt: Date

    /// The number of pages.
    public var pageCount: Int { pages.count }

    /// Makes a document's info from its parts.
    public init(
        id: DocumentID, validator: EntityTag, version: Int64, contentTag: EntityTag, origin: DocumentRecord.Origin,
        pages: [Page], metadata: DocumentMetadata, files: [File], state: DocumentState,
        conflict: DocumentState.ConflictType?, damage: DocumentDamage?, isEncrypted: Bool, size: Int,
        createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.validator = validator
        self.version = version
        self.contentTag = contentTag
        self.origin = origin
        self.pages = pages
        self.metadata = metadata
        self.files = files
        self.state = state
        self.conflict = conflict
        self.damage = damage
        self.isEncrypted = isEncrypted
        self.size = size
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
