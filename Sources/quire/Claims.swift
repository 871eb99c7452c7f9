import ArgumentParser
import CoordinatedOperations
import FileCoordination
import QuireCommandLine

/// `quire claims`: held and waiting coordinated accesses, and who blocks whom.
struct Claims: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List held and waiting coordinated accesses per path, and who blocks whom.",
        discussion: """
            For each claimed path: its holders, then its waiters in arrival order, each with process id and \
            command line, read or write and options, state (holding, asking-presenters, waiting), age and the \
            accesses it waits for. Does not start the shared arbiter.

            Exit codes: 0 success; 69 the shared coordination arbiter does not answer.
            """
    )

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    func run() throws {
        try reportingCoordinationFailures {
            let report = ClaimsReport(try CoordinationService.status())
            StandardStreams.print(json ? try JSONOutput.encode(report) + "\n" : report.text)
        }
    }
}
