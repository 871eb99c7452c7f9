import ArgumentParser

/// The arguments and help of `quire events`, shared by `quire` and `quire-store`.
public struct EventsArguments: ParsableArguments {
    /// The configuration of the `events` subcommand in both executables.
    public static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Follow the change feed of a running service, one line per event.",
        discussion: """
            Prints "following events at URL" on standard error once connected, then one line per event on \
            standard output: id, time, type (created, changed, moved, deleted, conflict, resolved, saved), \
            document and details; with --json, the event's JSON object, one per line. A dropped connection is \
            resumed after the last event received (Last-Event-ID), so none is lost; the command gives up after \
            10 attempts in a row fail. Runs until SIGINT or SIGTERM, or until --count events.

            Exit codes: 0 success (stopped by a signal or --count); 64 bad usage; 69 no service at the URL, or \
            it went away for good; 76 the answer is not the service's; 77 the token is missing or wrong.
            """
    )

    /// `--since ID`: the id after which to replay.
    @Option(
        help: ArgumentHelp(
            "Replay the events after this id from the service's log first (sent as Last-Event-ID).", valueName: "id"))
    public var since: Int64?

    /// `--count N`: how many events to print before exiting.
    @Option(help: ArgumentHelp("Exit after this many events.", valueName: "n"))
    public var count: Int?

    /// Where the service is, its token, and JSON output.
    @OptionGroup public var server: ServerOptions

    /// Makes empty arguments (ArgumentParser fills them in).
    public init() {}
}
