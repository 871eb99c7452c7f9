#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place where this module calls the operating system: retries `EINTR` and turns failures into errors.
enum SystemCall {
    /// Runs `body` until it does not fail with `EINTR`; a result of -1 becomes `.operationFailed` naming the call and errno.
    @discardableResult
    static func retrying<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(PDFError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw .operationFailed(operation: name, reason: String(cString: strerror(code)) + " (errno \(code))")
        }
    }

    /// A private temporary file (mode 0600) that lives until ``remove()``.
    struct TemporaryFile {
        /// Its path.
        let path: String
        /// A descriptor open on it for reading and writing.
        let descriptor: Int32

        /// Creates the file in `$TMPDIR` (default `/tmp`).
        init() throws(PDFError) {
            let directory = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
            var template = Array((directory + "/quire-save-XXXXXX").utf8CString)
            descriptor = try retrying("mkstemp") { template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) } }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }

        /// Unlinks the file and closes the descriptor.
        func remove() {
            unlink(path)
            SystemCall.close(descriptor)
        }
    }

    /// Reads a whole file from offset 0 through `fd`.
    static func readAll(_ fd: Int32) throws(PDFError) -> [UInt8] {
        var info = stat()
        try retrying("fstat") { fstat(fd, &info) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let count = try retrying("pread") {
                bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            }
            if count == 0 { break }
            done += count
        }
        return Array(bytes[0..<done])
    }

    /// Closes a descriptor once; `close` is never retried (its descriptor is gone even on EINTR).
    static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }
}
