/// The version both executables print for `--version`.
public enum QuireVersion {
    /// The release this build belongs to.
    public static let current = "0.1.0"
}
