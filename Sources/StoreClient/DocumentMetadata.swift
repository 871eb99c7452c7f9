import Foundation

/// A PDF's document information, as the service reports it and as a merge patch changes it.
///
/// Members left nil are absent from the JSON, so as the body of `PATCH /documents/{id}/metadata` (a JSON merge
/// patch, RFC 7396) it sets the members given and leaves the others unchanged.
public struct DocumentMetadata: Sendable, Hashable, Codable {
    /// The title.
    public var title: String?
    /// The author.
    public var author: String?
    /// The subject.
    public var subject: String?
    /// The keywords.
    public var keywords: String?
    /// The program that made the original document.
    public var creator: String?
    /// The program that wrote the PDF.
    public var producer: String?
    /// When the document was made (RFC 3339, as the service sends it).
    public var creationDate: String?
    /// When it was last modified (RFC 3339).
    public var modificationDate: String?

    /// Makes metadata (or a patch): every member is absent unless given.
    public init(
        title: String? = nil, author: String? = nil, subject: String? = nil, keywords: String? = nil,
        creator: String? = nil, producer: String? = nil, creationDate: String? = nil, modificationDate: String? = nil
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
}
