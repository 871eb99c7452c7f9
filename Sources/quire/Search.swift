import ArgumentParser
import QuireCommandLine

/// `quire search`, as `quire --help` lists it. `Quire.main()` hands `search` to the `quire-store` helper (which
/// links the service stack) before parsing; `run()` does the same for any other way in.
struct Search: ParsableCommand {
    static let configuration = SearchArguments.configuration

    @OptionGroup var arguments: SearchArguments

    func run() throws {
        try reportingFailures { try HelperExecutable.store.replaceProcess() }
    }
}
