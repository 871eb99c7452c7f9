import ArgumentParser
import CoordinatedOperations
import QuireCommandLine

#if canImport(Glibc)
import Glibc
#endif

/// `quire rm FILE`: a coordinated deletion.
struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete a file (or, with -r, a directory) in coordination; its presenters let go first.",
        discussion: """
            Without -r, a directory is refused (bad usage, 64).

            Exit codes: 0 success; \(CommandFailure.coordinationCodes)
            """
    )

    @Argument(help: "The file or directory to delete.")
    var file: String

    @Flag(name: [.short, .long], help: "Delete a directory and everything in it.")
    var recursive = false

    func run() throws {
        try reportingCoordinationFailures {
            do {
                try CoordinatedFileOperations.remove(file, recursive: recursive)
            } catch let error as SystemCallError where error.errno == EISDIR && error.call == "unlink" {
                throw CommandFailure("\(file): is a directory (use -r to delete it)", exitCode: CommandFailure.usage)
            }
        }
    }
}
