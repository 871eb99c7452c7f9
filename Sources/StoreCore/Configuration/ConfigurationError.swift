/// Why the service's configuration cannot be used. Each description is one line that names the key, the value
/// and where the value came from, so that start-up can stop with exactly that line.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A value is present but unusable: `key` is the configuration key (`port`), `value` the value as given
    /// (secrets redacted), `reason` what a valid value looks like.
    case invalidValue(key: String, value: String, source: ConfigurationSource, reason: String)
    /// The configuration file cannot be read or is not a JSON object; `reason` says which.
    case unreadableFile(path: String, reason: String)
    /// The configuration file has a key the service does not know (a typo would otherwise be ignored silently).
    case unknownKey(key: String, path: String, knownKeys: [String])

    /// One line, starting with `invalid configuration:`.
    public var description: String {
        switch self {
        case .invalidValue(let key, let value, let source, let reason):
            return "invalid configuration: \(key) = \(value) from \(source): \(reason)"
        case .unreadableFile(let path, let reason):
            return "invalid configuration: cannot use \(path): \(reason)"
        case .unknownKey(let key, let path, let knownKeys):
            return "invalid configuration: unknown key \"\(key)\" in \(path) (known keys: "
                + knownKeys.joined(separator: ", ") + ")"
        }
    }
}
