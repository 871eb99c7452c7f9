#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which call, the `errno` it set, and the path it was about when there is one.
///
/// The one error type of Quire's system-call layer: every module's calls fail with it, and modules whose public
/// API has its own error (``DataProviderError`` in DocumentModel, `PDFError` in Poppler) map it at their edge.
public struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The C function that failed, such as `rename` or `inotify_add_watch`.
    public var call: String
    /// The `errno` value it set.
    public var errno: Int32
    /// The path the call was about, or nil when it had none (a descriptor, a socket).
    public var path: String?

    /// Makes an error for `call`; `errno` defaults to the calling thread's current one.
    public init(call: String, errno: Int32 = Glibc.errno, path: String? = nil) {
        self.call = call
        self.errno = errno
        self.path = path
    }

    /// The system's text for the error number, such as "No such file or directory".
    public var reason: String { String(cString: strerror(errno)) }

    /// `PATH: reason (call)` when there is a path, else `call: reason (errno N)`; a hint follows for the limits
    /// a user can raise (inotify's watch and instance limits).
    public var description: String {
        var text = path.map { "\($0): \(reason) (\(call))" } ?? "\(call): \(reason) (errno \(errno))"
        switch (call, errno) {
        case ("inotify_add_watch", ENOSPC):
            text += "; the per-user inotify watch limit is exhausted: raise fs.inotify.max_user_watches"
        case ("inotify_init1", EMFILE):
            text += "; the per-user inotify instance limit is exhausted: raise fs.inotify.max_user_instances"
        case ("inotify_add_watch", ENOENT):
            text += "; the directory does not exist (yet)"
        default:
            break
        }
        return text
    }
}
