import ArgumentParser

/// The arguments and help of `quire status`, shared by `quire` and `quire-store`.
public struct StatusArguments: ParsableArguments {
    /// The configuration of the `status` subcommand in both executables.
    public static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List the documents of a running service with their state, and why they are not clean.",
        discussion: """
            One line per document, oldest first: id, state (clean, dirty, conflict, deleted or damaged), why \
            (unsaved edits; for a conflict its type, modification or deletion, and the file), pages, size and \
            title; then a line saying how many were shown and whether more follow. Shows the first --limit \
            documents (default 100), reading the service's listing page by page; --state asks the service for \
            those states only. With --json, one JSON document: {"server", "documents": [{"id", "state", \
            "conflict", "why", "title", "pageCount", "size", "etag", "updatedAt"}], "more"}, where "more" says \
            whether documents beyond --limit follow.

            Exit codes: 0 success; 64 bad usage (a --limit below 1, an unknown --state); 69 no service at the URL \
            (or it failed); 76 the answer is not the service's; 77 the token is missing or wrong.
            """
    )

    /// How many documents `status` shows when `--limit` does not say.
    public static let defaultLimit = 100

    /// `--limit N`, nil when not given (``defaultLimit``); the command refuses a value below 1.
    @Option(help: ArgumentHelp("How many documents to show, oldest first (default: 100).", valueName: "n"))
    public var limit: Int?

    /// The states asked for (`--state`, repeatable; each one name or several separated by commas); empty: all.
    @Option(
        name: .customLong("state"),
        help: ArgumentHelp(
            "Show only documents in this state (clean, dirty, conflict, deleted, damaged); repeat for more.",
            valueName: "state"))
    public var states: [String] = []

    /// Where the service is, its token, and JSON output.
    @OptionGroup public var server: ServerOptions

    /// Makes empty arguments (ArgumentParser fills them in).
    public init() {}
}
