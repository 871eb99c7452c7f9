import ArgumentParser
import CoordinatedOperations
import QuireCommandLine

/// `quire-store`: the commands of `quire` that run or talk to the document-store service, in their own
/// executable so that `quire` itself starts without Hummingbird, NIO and SQLite. `quire` replaces itself with
/// this program, with the same arguments, for these commands; both parse them with the same definitions
/// (`QuireCommandLine`), so help, errors and exit codes are those `quire` documents. It is not meant to be run
/// by hand.
@main
struct QuireStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire",
        abstract: "Run the service commands of quire (quire starts this helper; it must sit next to quire).",
        version: QuireVersion.current,
        subcommands: [Serve.self, Status.self, Resolve.self, Versions.self, Events.self, Search.self]
    )

    /// Runs the command; usage errors are one line, as in `quire`. SIGINT and SIGTERM are unblocked first, before
    /// any thread starts, since a parent (a test runner, a supervisor) may have started this process with them
    /// blocked, and the service stops on them.
    static func main() async {
        TerminationSignals.unblock()
        await mainAsyncWithOneLineUsageErrors()
    }
}
