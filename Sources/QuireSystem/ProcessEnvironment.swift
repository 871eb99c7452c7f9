#if canImport(Glibc)
    import Glibc
#endif

/// Single variables of this process's environment, read with `getenv`.
///
/// `ProcessInfo.processInfo.environment` copies the whole environment into a new dictionary on every call, which
/// shows in a short-lived command's start-up (`quire exec` spent 3.5 % of its time there); code that needs a few
/// named variables reads them here instead. Like `ProcessInfo`, it sees changes made with `setenv`; neither is safe
/// against a `setenv` on another thread at the same moment (Quire never changes its environment).
public enum ProcessEnvironment {
    /// The value of the variable `name`, or nil when it is not set.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The directory for temporary files: `$TMPDIR` (see ``temporaryDirectory(tmpdir:)``).
    public static var temporaryDirectory: String { temporaryDirectory(tmpdir: value("TMPDIR")) }

    /// The directory for temporary files given the value of `TMPDIR`: that value without trailing slashes, or `/tmp`
    /// when it is unset or empty (an empty `TMPDIR` must not put files at the root).
    public static func temporaryDirectory(tmpdir: String?) -> String {
        guard var directory = tmpdir, !directory.isEmpty else { return "/tmp" }
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        return directory
    }
}
