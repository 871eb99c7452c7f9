/// The store's full-text index, in the catalog's own database: SQLite FTS5 in ``Catalog``, PostgreSQL full-text
/// search (`tsvector`, a GIN index) in ``PostgresCatalog``. Both pass the same conformance suite.
///
/// The index holds, per document, the version of its catalog record it reflects and what its files said then: one
/// entry per page with text (number, label, text) and one for its metadata (title, author, subject, keywords,
/// page number 0). A document removed from the catalog leaves the index in the same transaction.
public protocol SearchIndex: Sendable {
    /// Replaces what the index holds of `entry.id` with `entry`, unless the index holds a later version of it, or
    /// the document is no longer in the catalog (or is deleted): then nothing changes.
    /// - Returns: Whether the entry was written.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    @discardableResult
    func index(_ entry: IndexedDocument) async throws -> Bool

    /// Removes what the index holds of document `id` (nothing when it holds nothing).
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func removeFromIndex(_ id: DocumentID) async throws

    /// The version the index reflects of each of these documents it holds.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func indexedVersions(of ids: [DocumentID]) async throws -> [DocumentID: Int64]

    /// At most `limit` entries of the catalog, in listing order after `position`, whose version the index does not
    /// reflect (never indexed, or indexed at another version): a bounded step of a node's catch-up.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func documentsToIndex(after position: ListingPosition?, limit: Int) async throws
        -> (documents: [DocumentRecord], next: ListingPosition?)

    /// At most `request.limit` pages that match `request.query`, best first (ties by document id and page number),
    /// after `request.after`.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func search(_ request: SearchRequest) async throws -> [SearchHit]

    /// How many documents and pages the index holds, and the bytes of their text.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func indexStatistics() async throws -> SearchIndexStatistics
}

/// What the index holds of one document.
public struct IndexedDocument: Sendable, Hashable {
    /// What extraction found.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// The text of its pages (pages without text have none).
        case text
        /// It is encrypted and the store has no password for it: metadata only (none, as the PDF hides it).
        case encrypted
        /// A file does not open as a PDF: metadata only.
        case damaged
        /// Extraction failed for a reason that may pass (a worker crashed or missed its deadline), several times:
        /// nothing indexed for this version; a later version is tried again.
        case failed
    }

    /// The document.
    public var id: DocumentID
    /// The version of its catalog record the text was read at.
    public var version: Int64
    /// What extraction found.
    public var status: Status
    /// The metadata, nil when none.
    public var title, author, subject, keywords: String?
    /// The pages with text.
    public var pages: [IndexedPage]

    /// An entry.
    public init(
        id: DocumentID, version: Int64, status: Status, title: String? = nil, author: String? = nil,
        subject: String? = nil, keywords: String? = nil, pages: [IndexedPage] = []
    ) {
        self.id = id
        self.version = version
        self.status = status
        self.title = title
        self.author = author
        self.subject = subject
        self.keywords = keywords
        self.pages = pages
    }

    /// The text of the metadata entry (page 0): the metadata's lines, nil when there is none.
    var metadataText: String? {
        let lines = [title, author, subject, keywords].compactMap { $0 }.filter { !$0.isEmpty }
        return lines.isEmpty ? nil : IndexedPage.cleaned(lines.joined(separator: "\n"))
    }
}

/// One page of an indexed document.
public struct IndexedPage: Sendable, Hashable {
    /// The page number, from 1.
    public var number: Int
    /// The page label, if the PDF gives one.
    public var label: String?
    /// The text.
    public var text: String

    /// A page; control characters of the text become spaces (they mark matches in snippets).
    public init(number: Int, label: String?, text: String) {
        self.number = number
        self.label = label
        self.text = Self.cleaned(text)
    }

    /// `text` without control characters other than line feeds and tabs.
    static func cleaned(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" }) else { return text }
        return String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.value < 0x20 && $0 != "\n" && $0 != "\t" ? " " : $0 }))
    }
}

/// A query of the index, with its filters and where the page starts.
public struct SearchRequest: Sendable, Hashable {
    /// The default number of hits on a page.
    public static let defaultLimit = 20
    /// The most hits on a page.
    public static let maximumLimit = 100

    /// What to look for.
    public var query: SearchQuery
    /// Only documents in one of these states (any state when empty).
    public var states: Set<DocumentState.Name>
    /// Only this document, when set.
    public var document: DocumentID?
    /// The page starts after this hit; from the best when nil.
    public var after: SearchPosition?
    /// The most hits.
    public var limit: Int

    /// A request.
    public init(
        query: SearchQuery, states: Set<DocumentState.Name> = [], document: DocumentID? = nil,
        after: SearchPosition? = nil, limit: Int = SearchRequest.defaultLimit
    ) {
        self.query = query
        self.states = states
        self.document = document
        self.after = after
        self.limit = limit
    }
}

/// Where a hit is in the order of hits: its score (lower is better), document and page.
public struct SearchPosition: Sendable, Hashable {
    /// The engine's score, lower first (SQLite's `bm25()`, PostgreSQL's `ts_rank` negated).
    public var score: Double
    /// The document's id.
    public var documentID: String
    /// The page number (0: the metadata).
    public var page: Int

    /// A position.
    public init(score: Double, documentID: String, page: Int) {
        self.score = score
        self.documentID = documentID
        self.page = page
    }
}

/// One page that matches a query.
public struct SearchHit: Sendable, Hashable {
    /// The document.
    public var documentID: DocumentID
    /// The document's title in the catalog.
    public var title: String?
    /// The page number from 1; nil when the document's metadata matched.
    public var page: Int?
    /// The page label.
    public var label: String?
    /// The text around the matches, each match between ``SearchHit/markStart`` and ``SearchHit/markEnd``.
    public var snippet: String
    /// The document version the index reflects.
    public var version: Int64
    /// Where the hit is in the order of hits.
    public var position: SearchPosition

    /// What precedes a match in ``snippet`` (a control character: indexed text has none).
    public static let markStart = "\u{2}"
    /// What follows a match in ``snippet``.
    public static let markEnd = "\u{3}"

    /// A hit.
    public init(
        documentID: DocumentID, title: String?, page: Int?, label: String?, snippet: String, version: Int64,
        position: SearchPosition
    ) {
        self.documentID = documentID
        self.title = title
        self.page = page
        self.label = label
        self.snippet = snippet
        self.version = version
        self.position = position
    }
}

/// The size of the index.
public struct SearchIndexStatistics: Sendable, Hashable {
    /// Documents indexed (any status).
    public var documents: Int
    /// Entries with text (pages and metadata).
    public var pages: Int
    /// The UTF-8 bytes of their text.
    public var textBytes: Int

    /// Statistics.
    public init(documents: Int, pages: Int, textBytes: Int) {
        self.documents = documents
        self.pages = pages
        self.textBytes = textBytes
    }
}
