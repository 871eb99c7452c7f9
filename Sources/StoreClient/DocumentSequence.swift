import Foundation

/// Every document of a listing (`GET /documents`), oldest first, as an asynchronous sequence that reads one page
/// at a time, following each page's `next` cursor only when the documents before it have been taken.
///
/// At most one page is held in memory. A walk lists each document at most once, and every document that exists
/// for the whole walk exactly once; documents that enter or leave the store during it may or may not appear.
/// Iteration throws ``StoreClientError`` as the client's other calls do (`.problem` with status 400 for a page
/// size outside 1…1000), or `CancellationError`.
public struct DocumentSequence: AsyncSequence, Sendable {
    /// The listed documents.
    public typealias Element = DocumentSummary

    let client: StoreClient
    /// Only documents in these states; empty: every state.
    public let states: Set<DocumentState>
    /// Only documents changed at or after this date; nil: every one.
    public let updatedSince: Date?
    /// How many documents each request asks for (the service takes 1…1000).
    public let pageSize: Int

    init(client: StoreClient, states: Set<DocumentState>, updatedSince: Date?, pageSize: Int) {
        self.client = client
        self.states = states
        self.updatedSince = updatedSince
        self.pageSize = pageSize
    }

    /// Starts a walk: the first call to `next()` reads the first page.
    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// Every document of the walk, read page by page: for tests and small stores (a large store's walk holds
    /// every summary in memory at once; iterate instead).
    /// - Throws: ``StoreClientError``, or `CancellationError`.
    public func collect() async throws -> [DocumentSummary] {
        var documents: [DocumentSummary] = []
        for try await document in self { documents.append(document) }
        return documents
    }

    /// Reads the walk's pages one at a time; see ``DocumentSequence``.
    public struct Iterator: AsyncIteratorProtocol {
        private let sequence: DocumentSequence
        /// The documents of the page read last, not yet returned (reversed, so that the next is the last).
        private var pending: [DocumentSummary] = []
        /// The cursor of the page to read next; nil before the first page and after the last.
        private var cursor: String?
        private var started = false

        init(sequence: DocumentSequence) {
            self.sequence = sequence
        }

        /// The next document, reading the next page when the one read last is used up; nil after the last page.
        /// - Throws: ``StoreClientError`` (`.unexpectedResponse` when the service hands back the cursor it was
        ///   given, which would walk forever), or `CancellationError`.
        public mutating func next() async throws -> DocumentSummary? {
            while pending.isEmpty {
                if started && cursor == nil { return nil }
                try Task.checkCancellation()
                let page = try await sequence.client.documentPage(
                    limit: sequence.pageSize, states: sequence.states, updatedSince: sequence.updatedSince,
                    cursor: cursor)
                if let next = page.next, next == cursor {
                    throw StoreClientError.unexpectedResponse(
                        server: sequence.client.server,
                        reason: "GET /documents answered a page whose next is its own cursor")
                }
                started = true
                cursor = page.next
                pending = page.documents.reversed()
            }
            return pending.removeLast()
        }
    }
}
