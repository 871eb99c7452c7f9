import ArgumentParser

/// The arguments and help of `quire versions`, shared by `quire` and `quire-store`.
public struct VersionsArguments: ParsableArguments {
    /// The configuration of the `versions` subcommand in both executables.
    public static let configuration = CommandConfiguration(
        commandName: "versions",
        abstract: "List, or restore, the versions a running service kept of a document's files.",
        usage: "quire versions <id> [--restore <version>] [--server <url>] [--token <token>] [--json]",
        discussion: """
            A conflict resolution keeps the side it drops as a conflict version: reload keeps the unsaved edits, \
            save the bytes on disk it overwrote. Lists one line per version, oldest first: id, date, size, \
            conflict state and file. With --restore, makes that version's bytes the file's content again (the \
            document must not be in conflict) and prints the document's new state and entity tag. With --json, \
            one JSON document: {"id", "versions": [...]} when listing, {"id", "restored", "state", "etag"} after \
            --restore.

            Exit codes: 0 success; 64 bad usage (an invalid id); 65 the service refused the restore (the \
            document is in conflict, or changed while restoring: run it again); 66 no such document or version; \
            69 no service at the URL (or it failed); 76 the answer is not the service's; 77 the token is missing \
            or wrong.
            """
    )

    /// The document's id.
    @Argument(help: ArgumentHelp("The document's id (quire status lists them).", valueName: "id"))
    public var id: String

    /// The version to restore, if any.
    @Option(help: ArgumentHelp("Restore this version (an id from the list).", valueName: "version"))
    public var restore: String?

    /// Where the service is, its token, and JSON output.
    @OptionGroup public var server: ServerOptions

    /// Makes empty arguments (ArgumentParser fills them in).
    public init() {}
}
