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
        for name in try entries(of: path) { try remove(path + "/" + name) }
        try SystemCall.retryingOnInterrupt("rmdir", path: path) { rmdir(path) }
    }

    /// The names in a directory, without `.` and `..`.
    private static func entries(of path: String) throws(SystemCallError) -> [String] {
        guard let directory = opendir(path) else { throw SystemCallError(call: "opendir", path: path) }
        defer { closedir(directory) }
        var names: [String] = []
        errno = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        if errno != 0 { throw SystemCallError(call: "readdir", path: path) }
        return names
    }
}
