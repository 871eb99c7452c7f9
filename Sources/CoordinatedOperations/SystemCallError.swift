#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which call, on which path, and the `errno` it set.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    /// The C function that failed, such as `rename`.
    public let call: String
    /// The path the call was about (empty if none).
    public let path: String
    /// The `errno` value.
    public let errno: Int32
    /// True if the call was making an output (a temporary file, a rename's destination): a missing directory
    /// then means the output cannot be created rather than that an input is missing.
    public let creating: Bool

    /// Makes an error; `errno` defaults to the current one.
    public init(_ call: String, path: String, errno: Int32 = Glibc.errno, creating: Bool = false) {
        self.call = call
        self.path = path
        self.errno = errno
        self.creating = creating
    }

    /// The system's text for the error number, such as "No such file or directory".
    public var reason: String { String(cString: strerror(errno)) }

    /// "PATH: reason (call)".
    public var description: String {
        path.isEmpty ? "\(reason) (\(call))" : "\(path): \(reason) (\(call))"
    }
}

/// The one helper that calls the operating system: retries `EINTR`, turns `-1` into a ``SystemCallError``.
/// Never used for `close`, which must not be retried.
@discardableResult
func systemCall<T: FixedWidthInteger>(
    _ call: String, path: String = "", creating: Bool = false, _ body: () -> T
) throws(SystemCallError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        if errno == EINTR { continue }
        throw SystemCallError(call, path: path, creating: creating)
    }
}
