import ArgumentParser
import CoordinatedOperations
import FileCoordination
import QuireCommandLine

/// `quire presenters`: who presents what, by process.
struct Presenters: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the registered file presenters: process, command line, presented item.",
        discussion: """
            Asks the shared coordination arbiter (or, with QUIRE_COORDINATION_SCOPE=process, this process) and \
            does not start it: when no process hosts it, there is nothing to list.

            Exit codes: 0 success; 69 the shared coordination arbiter does not answer.
            """
    )

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    func run() throws {
        try reportingCoordinationFailures {
            let report = PresentersReport(try CoordinationService.status())
            StandardStreams.print(json ? try JSONOutput.encode(report) + "\n" : report.text)
        }
    }
}
