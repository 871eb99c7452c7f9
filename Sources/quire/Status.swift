import ArgumentParser
import QuireCommandLine

/// `quire status`, as `quire --help` lists it. `Quire.main()` hands `status` to the `quire-store` helper (which
/// links the service stack) before parsing; `run()` does the same for any other way in.
struct Status: ParsableCommand {
    static let configuration = StatusArguments.configuration

    @OptionGroup var arguments: StatusArguments

    func run() throws {
        try reportingFailures { try HelperExecutable.store.replaceProcess() }
    }
}
