import ArgumentParser
import Foundation
import QuireAPICoding
import QuireCommandLine
import StoreClient

/// `quire search QUERY [--limit N]`: the pages of a running service's documents that match a query.
struct Search: AsyncParsableCommand {
    static let configuration = SearchArguments.configuration

    @OptionGroup var arguments: SearchArguments

    func run() async throws {
        try await reportingFailures {
            let page = try await arguments.server.withClient { client in
                try await client.search(arguments.query, limit: arguments.limit)
            }
            if arguments.server.json {
                StandardStreams.print(try JSONOutput.encode(AbsentAsNull(page)) + "\n")
            } else {
                StandardStreams.print(page.results.map(Self.line).joined())
            }
        }
    }

    /// `ID  p. N (LABEL)  TITLE  SNIPPET`, the matches between `[` and `]`.
    private static func line(_ hit: SearchResultPage.Hit) -> String {
        var place = hit.page.map { "p. \($0)" } ?? "metadata"
        if let label = hit.label, hit.page != nil, label != String(hit.page!) { place += " (\(label))" }
        let marked = hit.plainSnippet(markingMatchesWith: "[", "]")
        let text = marked.split(whereSeparator: \.isNewline).joined(separator: " ")
        return "\(hit.document)  \(place)  \(hit.title ?? "(untitled)")  \(text)\n"
    }
}
