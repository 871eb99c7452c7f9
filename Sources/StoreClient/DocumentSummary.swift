import Foundation

/// One document of `GET /documents`.
public struct DocumentSummary: Sendable, Hashable, Codable {
    /// The document's id.
    public var id: String
    /// The title from the PDF's metadata, if it has one.
    public var title: String?
    /// The number of pages.
    public var pageCount: Int
    /// The bytes of all its files together.
    public var size: Int
    /// The document's validator, with its quotes (see ``DocumentInfo/etag``).
    public var etag: String
    /// The document's version.
    public var version: Int64
    /// The strong entity tag of its content, with its quotes.
    public var contentEtag: String
    /// Its state.
    public var state: DocumentState
    /// When it last changed.
    public var updatedAt: Date
}
