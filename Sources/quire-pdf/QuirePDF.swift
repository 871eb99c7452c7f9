import ArgumentParser
import QuireCommandLine

/// `quire-pdf`: the commands of `quire` that need poppler, in their own executable so that `quire` itself
/// starts without loading poppler, cairo and GLib. `quire` replaces itself with this program, with the same
/// arguments, for these commands; it parses them with the same definitions (`QuireCommandLine`), so help,
/// errors and exit codes are those `quire` documents. It is not meant to be run by hand.
@main
struct QuirePDF: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire",
        abstract: "Run the PDF commands of quire (quire starts this helper; it must sit next to quire).",
        version: QuireVersion.current,
        subcommands: [Inspect.self, Worker.self]
    )

    /// Runs the command; usage errors are one line, as in `quire`.
    static func main() {
        mainWithOneLineUsageErrors()
    }
}
