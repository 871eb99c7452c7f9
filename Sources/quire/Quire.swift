import ArgumentParser
import QuireCommandLine

#if canImport(Glibc)
import Glibc
#endif

/// The `quire` command: file coordination from the shell, and PDF inspection.
///
/// Two executables share one command line. `quire` links neither poppler nor cairo nor GLib, so the
/// coordination commands start as fast as `flock(1)` allows. For a PDF command it replaces itself (`execv`)
/// with `quire-pdf`, found next to its own executable, with the same arguments, before parsing them: exit
/// status, standard streams and signals are the helper's. Both parse the PDF commands with the definitions in
/// `QuireCommandLine`, so help and errors are the same wherever they are printed, and `quire --help` lists
/// every command.
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

    /// Runs the command. Two forms skip ArgumentParser, whose start-up reflection costs about 3 ms: the plain
    /// form of `exec`, and `inspect`, which goes straight to `quire-pdf` (it parses the same arguments, with the
    /// same help and errors). Usage errors are one line and exit code 64, like every other failure.
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if let status = Exec.runPlainForm(arguments) { Glibc.exit(status) }
        if arguments.first == InspectArguments.configuration.commandName {
            do {
                try PDFHelper.replaceProcess()
            } catch let failure as CommandFailure {
                StandardStreams.printError("quire: error: \(failure.message)")
                Glibc.exit(failure.exitCode)
            } catch {
                Glibc.exit(CommandFailure.software)
            }
        }
        mainWithOneLineUsageErrors()
    }
}
