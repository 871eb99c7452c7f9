import ArgumentParser
import QuireCommandLine

/// `quire inspect`, as `quire --help` lists it. `Quire.main()` hands `inspect` to the `quire-pdf` helper (which
/// links poppler) before parsing; `run()` does the same for any other way in.
struct Inspect: ParsableCommand {
    static let configuration = InspectArguments.configuration

    @OptionGroup var arguments: InspectArguments

    func run() throws {
        try reportingFailures { try HelperExecutable.pdf.replaceProcess() }
    }
}
