import ArgumentParser
import QuireCommandLine

/// `quire serve`, as `quire --help` lists it. `Quire.main()` hands `serve` to the `quire-store` helper (which
/// links the service stack) before parsing; `run()` does the same for any other way in.
struct Serve: ParsableCommand {
    static let configuration = ServeArguments.configuration

    @OptionGroup var arguments: ServeArguments

    func run() throws {
        try reportingFailures { try HelperExecutable.store.replaceProcess() }
    }
}
