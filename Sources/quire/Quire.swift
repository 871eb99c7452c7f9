import ArgumentParser
import QuireCommandLine

#if canImport(Glibc)
import Glibc
#endif

/// The `quire` command: file coordination from the shell, and PDF inspection.
///
/// Two executables share one command line. `quire` links neither poppler nor cairo nor GLib, so the
/// coordination commands start as fast as `flock(1)` allows; it parses every command, including the PDF ones
/// (their arguments and help come from `QuireCommandLine`, so `quire inspect --help` and usage errors never
/// load poppler), and runs a PDF command by replacing itself (`execv`) with `quire-pdf`, found next to its own
/// executable, with the same arguments: exit status, standard streams and signals pass through untouched.
@main
struct Quire: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire",
        abstract: "Inspect PDFs and work with files that other programs change at the same time.",
        version: QuireVersion.current,
        subcommands: [
            Inspect.self, Coordinator.self, Watch.self, Read.self, Write.self, Exec.self, Move.self, Remove.self,
            Presenters.self, Claims.self,
        ]
    )

    /// Parses and runs the command. Usage errors are one line, `quire: error: …`, and exit code 64, like every
    /// other failure; help and `--version` print as usual.
    static func main() {
        if let status = Exec.runPlainForm(CommandLine.arguments.dropFirst()) { Glibc.exit(status) }
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exitOnUsageError(error)
        }
        do {
            var command = command
            try command.run()
        } catch {
            exit(withError: error)
        }
    }

    private static func exitOnUsageError(_ error: any Error) -> Never {
        let code = exitCode(for: error)
        let message = message(for: error)
        guard code != .success, let line = message.split(separator: "\n").first else { exit(withError: error) }
        StandardStreams.printError("quire: error: \(line.trimmingPrefix("Error: ")) (see quire --help)")
        exit(withError: ExitCode(code == .validationFailure ? CommandFailure.usage : code.rawValue))
    }
}
