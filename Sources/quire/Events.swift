import ArgumentParser
import QuireCommandLine

/// `quire events`, as `quire --help` lists it. `Quire.main()` hands `events` to the `quire-store` helper (which
/// links the service stack) before parsing; `run()` does the same for any other way in.
struct Events: ParsableCommand {
    static let configuration = EventsArguments.configuration

    @OptionGroup var arguments: EventsArguments

    func run() throws {
        try reportingFailures { try HelperExecutable.store.replaceProcess() }
    }
}
