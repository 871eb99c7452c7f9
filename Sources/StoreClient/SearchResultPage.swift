import Foundation

/// One page of `GET /search`: the pages that match a query, best first, and the cursor of the page after it.
public struct SearchResultPage: Sendable, Hashable, Codable {
    /// One page (or one document's metadata) that matches.
    public struct Hit: Sendable, Hashable, Codable {
        /// The document's id.
        public var document: String
        /// The document's title, if it has one.
        public var title: String?
        /// The page number from 1; nil when the document's metadata matched.
        public var page: Int?
        /// The page's label, if the PDF gives one.
        public var label: String?
        /// The text around the matches as HTML: the text escaped, each match in `<mark>…</mark>`.
        public var snippet: String
        /// The version of the document the index reflects.
        public var version: Int64

        /// Makes a hit.
        public init(document: String, title: String?, page: Int?, label: String?, snippet: String, version: Int64) {
            self.document = document
            self.title = title
            self.page = page
            self.label = label
            self.snippet = snippet
            self.version = version
        }

        enum CodingKeys: String, CodingKey { case document, title, page, label, snippet, version }

        /// Encodes every member, absent ones as null (as the service does).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(document, forKey: .document)
            try container.encode(title, forKey: .title)
            try container.encode(page, forKey: .page)
            try container.encode(label, forKey: .label)
            try container.encode(snippet, forKey: .snippet)
            try container.encode(version, forKey: .version)
        }

        /// The snippet as plain text: the marks dropped, the HTML escapes undone.
        public var plainSnippet: String {
            snippet.replacingOccurrences(of: "<mark>", with: "").replacingOccurrences(of: "</mark>", with: "")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    /// The hits, best first.
    public var results: [Hit]
    /// The opaque cursor of the next page, for ``StoreClient/search(_:limit:states:document:cursor:)`` with the
    /// same query and filters; nil on the last page.
    public var next: String?

    /// Makes a page.
    public init(results: [Hit], next: String?) {
        self.results = results
        self.next = next
    }

    enum CodingKeys: String, CodingKey { case results, next }

    /// Encodes `next` as null on the last page (as the service does).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(results, forKey: .results)
        try container.encode(next, forKey: .next)
    }
}
