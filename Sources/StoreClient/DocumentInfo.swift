import Foundation

/// A document's info (`GET /documents/{id}`, and the answer to an upload or a resolution).
public struct DocumentInfo: Sendable, Hashable, Codable {
    /// One page: its number, size in points and label.
    public struct Page: Sendable, Hashable, Codable {
        /// The page number, from 1.
        public var number: Int
        /// The width in points (1/72 inch).
        public var width: Double
        /// The height in points.
        public var height: Double
        /// The page label (`iv`, `A-3`), if the PDF defines one.
        public var label: String?
    }

    /// One file of the document.
    public struct File: Sendable, Hashable, Codable {
        /// The file's absolute path (it follows moves).
        public var path: String
        /// Its size in bytes.
        public var size: Int
        /// Its strong entity tag, with the quotes.
        public var etag: String
    }

    /// The document's id.
    public var id: String
    /// The document's validator, with its quotes: what its info is tagged with, and what a write names as
    /// `ifMatch`. It changes with every change of the document (unsaved edits included).
    public var etag: String
    /// The document's version: 1 when it entered the store, one more with every change.
    public var version: Int64
    /// The strong entity tag of its content (what ``StoreClient/content(of:)`` returns), with its quotes.
    public var contentEtag: String
    /// `upload` (the file lives in the store) or `registered` (files under a configured root).
    public var origin: String
    /// The number of pages.
    public var pageCount: Int
    /// Every page.
    public var pages: [Page]
    /// The document information of the (first) PDF.
    public var metadata: DocumentMetadata
    /// Its files, in page order.
    public var files: [File]
    /// Its state.
    public var state: DocumentState
    /// Why it is in conflict, when it is.
    public var conflict: ConflictType?
    /// Whether the PDF is encrypted.
    public var encrypted: Bool
    /// The bytes of all its files together.
    public var size: Int
    /// When it entered the store.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
}
