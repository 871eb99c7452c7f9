import ArgumentParser
import CoordinatedOperations
import QuireCommandLine

/// `quire read FILE`: a file's bytes, read in coordination.
struct Read: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a file's bytes, read in coordination with the programs that present or write it.",
        discussion: """
            Waits for writers, asks presenters in other processes to save their changes first, then copies the \
            file to standard output.

            Exit codes: 0 success; \(CommandFailure.coordinationCodes)
            """
    )

    @Argument(help: "The file to read.")
    var file: String

    func run() throws {
        try reportingCoordinationFailures { try CoordinatedFileOperations.read(file, to: 1) }
    }
}
