import ArgumentParser
import QuireCommandLine

/// `quire resolve`, as `quire --help` lists it. `Quire.main()` hands `resolve` to the `quire-store` helper (which
/// links the service stack) before parsing; `run()` does the same for any other way in.
struct Resolve: ParsableCommand {
    static let configuration = ResolveArguments.configuration

    @OptionGroup var arguments: ResolveArguments

    func run() throws {
        try reportingFailures { try HelperExecutable.store.replaceProcess() }
    }
}
