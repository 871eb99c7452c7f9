import ArgumentParser
import QuireCommandLine

#if canImport(Glibc)
    import Glibc
#endif

/// The `quire` command: file coordination from the shell, PDF inspection, and the document-store service.
///
/// Three executables share one command line. `quire` links neither poppler, cairo and GLib nor the service
/// stack (Hummingbird, NIO, SQLite), so the coordination commands start as fast as `flock(1)` allows. For a PDF
/// command it replaces itself (`execv`) with `quire-pdf`, and for a service command with `quire-store`, found
/// next to its own executable, with the same arguments, before parsing them: exit status, standard streams and
/// signals are the helper's. All parse the helpers' commands with the definitions in `QuireCommandLine`, so
/// help and errors are the same wherever they are printed, and `quire --help` lists every command.
@main
struct Quire: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire",
        abstract: "Inspect PDFs, work with files that other programs change at the same time, and serve them.",
        version: QuireVersion.current,
        subcommands: [
            Inspect.self, Coordinator.self, Watch.self, Read.self, Write.self, Exec.self, Move.self, Remove.self,
            Presenters.self, Claims.self, Serve.self, Status.self, Resolve.self, Versions.self, Events.self,
            Search.self,
        ]
    )

    /// Runs the command. Some forms skip ArgumentParser, whose start-up reflection costs about 3 ms: the plain
    /// form of `exec`, and the helpers' commands (`inspect` goes straight to `quire-pdf`; `serve`, `status`,
    /// `resolve`, `versions`, `events` and `search` to `quire-store`; they parse the same arguments, with the same help and errors).
    /// Usage errors are one line and exit code 64, like every other failure.
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if let status = Exec.runPlainForm(arguments) { Glibc.exit(status) }
        if let command = arguments.first, let helper = HelperExecutable.running(command) {
            do {
                try helper.replaceProcess()
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
