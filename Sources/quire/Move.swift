import ArgumentParser
import CoordinatedOperations
import QuireCommandLine

/// `quire mv SRC DST`: a coordinated rename.
struct Move: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mv",
        abstract: "Move or rename a file or directory in coordination; its presenters follow it.",
        discussion: """
            Holds SRC for moving and DST for replacing in one coordinated access, then renames. If DST is a \
            directory, SRC moves into it. Both must be on the same file system.

            Exit codes: 0 success; \(CommandFailure.coordinationCodes)
            """
    )

    @Argument(help: "The file or directory to move.")
    var source: String

    @Argument(help: "Its new path, or a directory to move it into.")
    var destination: String

    func run() throws {
        try reportingCoordinationFailures { try CoordinatedFileOperations.move(source, to: destination) }
    }
}
