import ArgumentParser

/// The options of every command that talks to a running service: where it is, its token, and JSON output.
public struct ServerOptions: ParsableArguments {
    /// The service's URL when neither `--server` nor `QUIRE_SERVER` gives one.
    public static let defaultServer = "http://127.0.0.1:8080"

    /// `--server URL`, nil when not given.
    @Option(
        help: ArgumentHelp(
            "The service's URL (default: $QUIRE_SERVER, else http://127.0.0.1:8080).", valueName: "url"))
    public var server: String?

    /// `--token T`, nil when not given.
    @Option(
        help: ArgumentHelp("The bearer token the service asks of changes (default: $QUIRE_TOKEN).", valueName: "token"))
    public var token: String?

    /// `--json`.
    @Flag(help: "Print JSON instead of text.")
    public var json = false

    /// Makes empty options (ArgumentParser fills them in).
    public init() {}
}
