#if canImport(Glibc)
    import Glibc
#endif

/// Single variables of this process's environment, read with `getenv`.
///
/// `ProcessInfo.processInfo.environment` copies the whole environment into a new dictionary on every call, which
/// shows in a short-lived command's start-up (`quire exec` spent 3.5 % of its time there); code that needs a few
/// named variables reads them here instead. Like `ProcessInfo`, it sees changes made with `setenv`; neither is safe
/// against a `setenv` on another thread at the same moment (Quire never calls `setenv`).
public enum ProcessEnvironment {
    /// The value of the variable `name`, or nil when it is not set.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
