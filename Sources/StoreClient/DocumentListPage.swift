/// One page of `GET /documents`: documents in listing order (when each entered the store, oldest first, ties by
/// id), and the cursor of the page after it.
public struct DocumentListPage: Sendable, Hashable, Codable {
    /// The page's documents. With `updatedSince` a page may hold fewer than the limit (even none) while more
    /// follow: follow ``next`` until it is nil.
    public var documents: [DocumentSummary]
    /// The opaque cursor of the next page, for ``StoreClient/documentPage(limit:states:updatedSince:cursor:)``
    /// with the same filters; nil when this is the last page.
    public var next: String?

    /// Makes a page.
    public init(documents: [DocumentSummary], next: String?) {
        self.documents = documents
        self.next = next
    }
}
