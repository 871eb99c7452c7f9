#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Info-dictionary metadata of a PDF. `nil` means the entry is absent; setting `nil` removes it.
public struct PDFMetadata: Sendable, Equatable, Codable {
    /// The document's title.
    public var title: String?
    /// The person who wrote the document.
    public var author: String?
    /// The document's subject.
    public var subject: String?
    /// Keywords, as one string (PDF has no list type here).
    public var keywords: String?
    /// The program that created the original document.
    public var creator: String?
    /// The program that produced the PDF.
    public var producer: String?
    /// When the document was created.
    public var creationDate: Date?
    /// When the document was last modified.
    public var modificationDate: Date?

    /// Creates metadata; every entry defaults to absent.
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
}
