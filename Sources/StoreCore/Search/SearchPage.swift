/// One page of the hits of a search, best first, and the cursor of the next page: what
/// ``DocumentLibrary/search(_:)`` answers.
public struct SearchPage: Sendable, Equatable {
    /// The hits, best first.
    public var hits: [SearchHit]
    /// The cursor of the next page (sealed by ``ListingCursors`` for the same query and filters), nil on the last.
    public var next: String?

    /// A page of `hits`, followed by the page `next` names.
    public init(hits: [SearchHit], next: String?) {
        self.hits = hits
        self.next = next
    }
}
