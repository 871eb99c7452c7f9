import ArgumentParser

/// The arguments and help of `quire resolve`, shared by `quire` and `quire-store`.
public struct ResolveArguments: ParsableArguments {
    /// How a conflict is resolved: exactly one of `--reload`, `--save` or `--close`.
    public enum Resolution: String, EnumerableFlag, Sendable {
        /// Drop the edits and read the files again.
        case reload
        /// Write the edits over the files (restoring a deleted file).
        case save
        /// Drop the document from the store.
        case close

        /// The help of each flag.
        public static func help(for value: Resolution) -> ArgumentHelp? {
            switch value {
            case .reload: "Drop the document's edits and read its files again."
            case .save: "Write the document's edits over its files (restoring a deleted file)."
            case .close: "Drop the document from the store (an uploaded file is not restored)."
            }
        }
    }

    /// The configuration of the `resolve` subcommand in both executables.
    public static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Resolve a document's conflict in a running service.",
        usage: "quire resolve <id> --reload|--save|--close [--server <url>] [--token <token>] [--json]",
        discussion: """
            Prints the document's new state and entity tag (nothing is left of it after --close). With --json, \
            one JSON document: {"id", "resolution", "state", "etag"} (state and etag null after --close).

            Exit codes: 0 resolved; 64 bad usage (not exactly one of --reload, --save, --close; an invalid id); \
            65 the document is not in conflict, or the service refused the resolution; 66 no such document; 69 \
            no service at the URL (or it failed); 76 the answer is not the service's; 77 the token is missing or \
            wrong.
            """
    )

    /// The document's id.
    @Argument(help: ArgumentHelp("The document's id (quire status lists them).", valueName: "id"))
    public var id: String

    /// The resolution, from exactly one of its flags.
    @Flag public var resolution: Resolution

    /// Where the service is, its token, and JSON output.
    @OptionGroup public var server: ServerOptions

    /// Makes empty arguments (ArgumentParser fills them in).
    public init() {}
}
