import StoreCore

/// The JSON of `GET /search`: one page of hits, best first, and the cursor of the next page.
public struct SearchResults: Codable, Sendable, Equatable {
    /// One page that matches.
    public struct Hit: Codable, Sendable, Equatable {
        /// The document's id.
        public var document: String
        /// The document's title, null when it has none.
        public var title: String?
        /// The page number from 1; null when the document's metadata (title, author, subject, keywords) matched.
        public var page: Int?
        /// The page's label, null when the PDF gives none.
        public var label: String?
        /// The text around the matches as HTML: the text escaped, each match in `<mark>…</mark>`.
        public var snippet: String
        /// The version of the document the index reflects (``DocumentRecord/version``).
        public var version: Int64

        /// A hit's representation.
        public init(_ hit: SearchHit) {
            document = hit.documentID.rawValue
            title = hit.title
            page = hit.page
            label = hit.label
            snippet = Self.html(hit.snippet)
            version = hit.version
        }

        enum CodingKeys: String, CodingKey { case document, title, page, label, snippet, version }

        /// Encodes every member, absent ones as null.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(document, forKey: .document)
            try container.encode(title, forKey: .title)
            try container.encode(page, forKey: .page)
            try container.encode(label, forKey: .label)
            try container.encode(snippet, forKey: .snippet)
            try container.encode(version, forKey: .version)
        }

        /// A snippet with the index's marks as HTML: the text escaped, the marks `<mark>` and `</mark>`.
        static func html(_ snippet: String) -> String {
            var html = ""
            html.reserveCapacity(snippet.utf8.count + 32)
            for scalar in snippet.unicodeScalars {
                switch scalar {
                case "&": html += "&amp;"
                case "<": html += "&lt;"
                case ">": html += "&gt;"
                case "\"": html += "&quot;"
                case "'": html += "&#39;"
                case "\u{2}": html += "<mark>"
                case "\u{3}": html += "</mark>"
                default: html.unicodeScalars.append(scalar)
                }
            }
            return html
        }
    }

    /// The hits, best first.
    public var results: [Hit]
    /// The cursor of the next page (`GET /search?cursor=` with the same query and filters), null on the last.
    public var next: String?

    /// A page of hits.
    public init(results: [Hit], next: String?) {
        self.results = results
        self.next = next
    }

    /// The representation of a page of hits.
    public init(_ page: SearchPage) {
        self.init(results: page.hits.map(Hit.init), next: page.next)
    }

    enum CodingKeys: String, CodingKey { case results, next }

    /// Encodes `next` as null on the last page.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(results, forKey: .results)
        try container.encode(next, forKey: .next)
    }
}
