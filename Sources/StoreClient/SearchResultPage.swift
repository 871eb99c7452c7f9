import QuireAPI

/// One page of `GET /search`: the pages that match a query, best first (`results`), and the opaque cursor of the
/// page after it (`next`, for ``StoreClient/search(_:limit:states:document:cursor:)`` with the same query and
/// filters; nil on the last page). openapi.yaml's `SearchResults`, generated in QuireAPI.
///
/// It encodes as the service sends it when wrapped in `AbsentAsNull` (`next` and a hit's `title`, `page` and
/// `label` as null when absent).
public typealias SearchResultPage = Components.Schemas.SearchResults

extension Components.Schemas.SearchResults {
    /// One page (or one document's metadata, when `page` is nil) that matches: the document's id and title, the
    /// page's number and label, the text around the matches as HTML (`snippet`: the text escaped, each match in
    /// `<mark>…</mark>`), and the version of the document the index reflects.
    public typealias Hit = Components.Schemas.SearchHit
}

extension Components.Schemas.SearchHit {
    /// The snippet as plain text: the marks dropped, the HTML escapes undone.
    public var plainSnippet: String {
        Self.plainText(snippet)
    }

    /// The snippet as plain text with each match between `open` and `close` (`[` and `]`, say).
    public func plainSnippet(markingMatchesWith open: String, _ close: String) -> String {
        Self.plainText(snippet.replacingOccurrences(of: "<mark>", with: open).replacingOccurrences(of: "</mark>", with: close))
    }

    private static func plainText(_ html: String) -> String {
        html.replacingOccurrences(of: "<mark>", with: "").replacingOccurrences(of: "</mark>", with: "")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
