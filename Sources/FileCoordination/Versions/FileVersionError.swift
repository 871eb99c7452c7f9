import Foundation

/// Why a versions-store operation failed; each case names the item or the store path involved.
public enum FileVersionError: Error, Sendable, CustomStringConvertible {
    /// The URL is not a `file:` URL; versions are kept only for files.
    case notAFileURL(URL)
    /// There is no item at the URL, so it has no versions to add or list.
    case noSuchItem(URL)
    /// The version (its identifier) is no longer in the store: another process or call removed it.
    case noSuchVersion(id: String, item: URL)
    /// The current version is the item itself: it cannot be removed or changed through the store.
    case currentVersionIsTheItem(URL)
    /// A file operation in the store (or on the item) failed; `operation` says which, `underlying` why.
    case storeFailed(operation: String, path: String, underlying: any Error)
    /// A system call on the store failed with `errno`.
    case systemCallFailed(call: String, path: String, errno: Int32)

    /// A message for the person reading the log: what failed, on which file, what to do.
    public var description: String {
        switch self {
        case .notAFileURL(let url):
            return "versions are kept only for file URLs, not \(url.absoluteString)"
        case .noSuchItem(let url):
            return "no item at \(url.path): a version needs an existing item (check the path)"
        case .noSuchVersion(let id, let item):
            return "version \(id) of \(item.path) is not in the versions store any more (removed by another call?)"
        case .currentVersionIsTheItem(let url):
            return "the current version of \(url.path) is the item itself; change the item with a coordinated write"
        case .storeFailed(let operation, let path, let underlying):
            return
                "versions store: \(operation) failed on \(path): \(underlying) "
                + "(check the store's permissions and free space)"
        case .systemCallFailed(let call, let path, let code):
            return "versions store: \(call) failed on \(path): \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}

extension FileVersionError: LocalizedError {
    /// The ``description``, so that the error bridged to `NSError` says what failed.
    public var errorDescription: String? { description }
}
