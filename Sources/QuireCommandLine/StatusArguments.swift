import ArgumentParser

/// The arguments and help of `quire status`, shared by `quire` and `quire-store`.
public struct StatusArguments: ParsableArguments {
    /// The configuration of the `status` subcommand in both executables.
    public static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List the documents of a running service with their state, and why they are not clean.",
        discussion: """
            One line per document: id, state (clean, dirty, conflict or deleted), why (unsaved edits; for a \
            conflict its type, modification or deletion, and the file), pages, size and title. With --json, one \
            JSON document: {"server", "documents": [{"id", "state", "conflict", "why", "title", "pageCount", \
            "size", "etag", "updatedAt"}]}.

            Exit codes: 0 success; 64 bad usage; 69 no service at the URL (or it failed); 76 the answer is not \
            the service's; 77 the token is missing or wrong.
            """
    )

    /// Where the service is, its token, and JSON output.
    @OptionGroup public var server: ServerOptions

    /// Makes empty arguments (ArgumentParser fills them in).
    public init() {}
}
