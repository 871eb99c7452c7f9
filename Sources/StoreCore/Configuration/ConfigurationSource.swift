/// Where a configuration value came from: named in every configuration error, so that the person starting the
/// service knows which flag, variable or file line to fix.
public enum ConfigurationSource: Sendable, Hashable, CustomStringConvertible {
    /// A command-line flag of `quire serve`, spelled as typed (`--port`).
    case flag(String)
    /// An environment variable (`QUIRE_PORT`).
    case environment(String)
    /// A key (dot-separated path, `coordination.scope`) in a JSON configuration file.
    case file(path: String, key: String)
    /// The built-in default, the same as `config/quire.json`.
    case builtInDefault

    /// Names the source as a person would look for it: `flag --port`, `environment variable QUIRE_PORT`,
    /// `config/quire.json (key "port")`, `the built-in default`.
    public var description: String {
        switch self {
        case .flag(let flag):
            return "flag \(flag)"
        case .environment(let name):
            return "environment variable \(name)"
        case .file(let path, let key):
            return "\(path) (key \"\(key)\")"
        case .builtInDefault:
            return "the built-in default"
        }
    }
}
