import ArgumentParser
import CoordinatedOperations
import QuireCommandLine

/// `quire write FILE [--from PATH]`: an atomic, coordinated replacement of a file's contents.
struct Write: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace a file's contents atomically, in coordination with its presenters and readers.",
        discussion: """
            Reads the new bytes first (standard input, or --from) into a temporary file in the same directory, \
            then, holding coordinated write access, renames it over FILE: readers see the old or the new \
            contents, never a mix, and presenters are told of the change. The file keeps its permission bits.

            Exit codes: 0 success; \(CommandFailure.coordinationCodes)
            """
    )

    @Argument(help: "The file to replace (created if missing).")
    var file: String

    @Option(help: ArgumentHelp("Read the new contents from this file instead of standard input.", valueName: "path"))
    var from: String?

    func run() throws {
        try reportingCoordinationFailures {
            try CoordinatedFileOperations.replaceContents(of: file, withContentsOf: from)
        }
    }
}
