import QuireAPI
import StoreCore

extension Components.Schemas.SearchResults {
    /// `SearchResults`, the body of `GET /search`, of one page of hits: best first, and the sealed cursor of the
    /// next page (null on the last).
    init(_ page: SearchPage) {
        self.init(results: page.hits.map(Components.Schemas.SearchHit.init), next: page.next)
    }
}

extension Components.Schemas.SearchHit {
    /// `SearchHit` of one page (or one document's metadata) that matches, its snippet as HTML.
    init(_ hit: StoreCore.SearchHit) {
        self.init(
            document: hit.documentID.rawValue, title: hit.title, page: hit.page, label: hit.label,
            snippet: Self.html(hit.snippet), version: hit.version)
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
