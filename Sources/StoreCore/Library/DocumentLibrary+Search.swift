import Foundation

extension DocumentLibrary {
    /// One page of the hits of `request`, best first, and the cursor of the next page (nil on the last).
    /// - Throws: A ``CatalogError`` when the index cannot be read, or `CancellationError`.
    public func search(_ request: SearchRequest) async throws -> SearchPage {
        var probe = request
        probe.limit = request.limit + 1  // one more says whether another page follows
        let hits = try await catalog.search(probe)
        let page = Array(hits.prefix(request.limit))
        let next =
            hits.count > request.limit ? page.last.map { listingCursors.seal(search: $0.position, for: request) } : nil
        return SearchPage(hits: page, next: next)
    }
}
