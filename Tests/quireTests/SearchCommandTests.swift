import Foundation
import QuireTestSupport
import StoreClient
import Testing

/// `quire search` against a real service: its lines, its JSON, its refusals, and its pinned --help.
@Suite("quire search")
struct SearchCommandTests {
    static let help = """
        OVERVIEW: Search the text of a running service's documents.

        The query takes words (all on one page), "phrases", -exclusions, OR between two terms and prefix*.
        Prints one line per page found, best first: document id, page number (and label), title, and the
        text around the matches with each match between [ and ]. With --json, one JSON document:
        {"results": [{"document", "title", "page", "label", "snippet", "version"}], "next"}.

        Exit codes: 0 success (also when nothing is found); 64 bad usage (a query with nothing to look for,
        or a limit outside 1 to 100); 69 no service at the URL (or it failed); 76 the answer is not the
        service's; 77 the token is missing or wrong.

        USAGE: quire search <query> [--limit <n>] [--server <url>] [--token <token>] [--json]

        ARGUMENTS:
          <query>                 What to look for (quote it for the shell).

        OPTIONS:
          --limit <n>             Print at most this many results (1 to 100; the service's default is 20).
          --server <url>          The service's URL (default: $QUIRE_SERVER, else http://127.0.0.1:8080).
          --token <token>         The bearer token the service asks of changes (default: $QUIRE_TOKEN).
          --json                  Print JSON instead of text.
          --version               Show the version.
          -h, --help              Show help information.


        """

    @Test("quire search --help is pinned, and quire --help lists search")
    func helpText() throws {
        let result = try QuireProcess.run(["search", "--help"])
        #expect(result.status == 0)
        #expect(result.output == Self.help)
        #expect(try QuireProcess.run(["--help"]).output.contains("\n  search "))
    }

    @Test(
        "a word found prints its document, page, title and marked snippet; --json prints the answer; nothing to find is 64"
    )
    func searchLines() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        defer { service.stop() }
        let client = try service.client()
        let uploaded = try await client.upload(
            pdf: TextPDF.make(["first page", "second page with a platypus"], title: "Field notes"))
        let deadline = ContinuousClock.now + .seconds(20)
        while try await client.search("platypus").results.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await client.shutdown()
        let text = try QuireProcess.run(["search", "platypus", "--server", service.url])
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.output == "\(uploaded.id)  p. 2  Field notes  second page with a [platypus]\n")
        let json = try QuireProcess.run(["search", "platypus", "--json", "--limit", "5", "--server", service.url])
        #expect(json.status == 0)
        let page = try JSONDecoder().decode(SearchResultPage.self, from: json.standardOutput)
        #expect(page.results.map(\.document) == [uploaded.id])
        #expect(page.results.first?.page == 2)
        #expect(page.next == nil)
        #expect(json.output.contains(#""next":null"#), "the last page's cursor is null, as the service sends it")
        let none = try QuireProcess.run(["search", "--server", service.url, "--", "-platypus"])
        #expect(none.status == 64)
        #expect(none.standardError.contains("no word to look for"), "\(none.standardError)")
        let empty = try QuireProcess.run(["search", "wombat", "--server", service.url])
        #expect(empty.status == 0 && empty.output.isEmpty)
    }
}
