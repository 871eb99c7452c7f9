import ArgumentParser
import QuireCommandLine

/// `quire versions`, as `quire --help` lists it. `Quire.main()` hands `versions` to the `quire-store` helper (which
/// links the service stack) before parsing; `run()` does the same for any other way in.
struct Versions: ParsableCommand {
    static let configuration = VersionsArguments.configuration

    @OptionGroup var arguments: VersionsArguments

    func run() throws {
        try reportingFailures { try HelperExecutable.store.replaceProcess() }
    }
}
