import ArgumentParser

/// The arguments and help of `quire search`, shared by `quire` and `quire-store`.
public struct SearchArguments: ParsableArguments {
    /// The configuration of the `search` subcommand in both executables.
    public static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the text of a running service's documents.",
        usage: "quire search <query> [--limit <n>] [--server <url>] [--token <token>] [--json]",
        discussion: """
            The query takes words (all on one page), "phrases", -exclusions, OR between two terms and prefix*. \
            Prints one line per page found, best first: document id, page number (and label), title, and the \
            text around the matches with each match between [ and ]. With --json, one JSON document: \
            {"results": [{"document", "title", "page", "label", "snippet", "version"}], "next"}.

            Exit codes: 0 success (also when nothing is found); 64 bad usage (a query with nothing to look for, \
            or a limit outside 1 to 100); 69 no service at the URL (or it failed); 76 the answer is not the \
            service's; 77 the token is missing or wrong.
            """
    )

    /// What to look for.
    @Argument(help: ArgumentHelp("What to look for (quote it for the shell).", valueName: "query"))
    public var query: String

    /// The most results.
    @Option(
        help: ArgumentHelp("Print at most this many results (1 to 100; the service's default is 20).", valueName: "n"))
    public var limit: Int?

    /// Where the service is, its token, and JSON output.
    @OptionGroup public var server: ServerOptions

    /// Makes empty arguments (ArgumentParser fills them in).
    public init() {}
}
