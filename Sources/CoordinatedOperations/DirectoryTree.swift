#if canImport(Glibc)
import QuireSystem
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes a file, or a directory with everything in it (symbolic links are removed, never followed).
enum DirectoryTree {
    /// Removes the item at `path`.
    static func remove(_ path: String) throws(SystemCallError) {
        var info = stat()
        try SystemCall.retryingOnInterrupt("lstat", path: path) { lstat(path, &info) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            try SystemCall.retryingOnInterrupt("unlink", path: path) { unlink(path) }
            return
        }
        for name in try SystemCall.directoryEntries(path) { try remove(path + "/" + name) }
        try SystemCall.retryingOnInterrupt("rmdir", path: path) { rmdir(path) }
    }
}
