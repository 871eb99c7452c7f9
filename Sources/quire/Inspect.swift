import ArgumentParser
import QuireCommandLine

/// `quire inspect`: parsed here, run by the `quire-pdf` helper, which links poppler.
struct Inspect: ParsableCommand {
    static let configuration = InspectArguments.configuration

    @OptionGroup var arguments: InspectArguments

    func run() throws {
        try reportingFailures { try PDFHelper.replaceProcess() }
    }
}
