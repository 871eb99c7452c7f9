import PDFTypes
import QuireSystem

#if canImport(Glibc)
import Glibc
#endif

/// A private temporary file (mode 0600, close-on-exec from its creation) that lives until ``remove()``; its
/// system calls go through the package's one layer (``SystemCall``), failures mapped to `PDFError`.
struct TemporaryFile {
    /// Its path.
    let path: String
    /// A descriptor open on it for reading and writing.
    let descriptor: Int32

    /// Creates the file in `$TMPDIR` (default `/tmp`).
    init() throws(PDFError) {
        let directory = ProcessEnvironment.temporaryDirectory
        do throws(SystemCallError) {
            (descriptor, path) = try SystemCall.makeTemporaryFile(template: directory + "/quire-save-XXXXXX")
        } catch {
            throw PDFError(error)
        }
    }

    /// Unlinks the file and closes the descriptor.
    func remove() {
        unlink(path)
        SystemCall.close(descriptor)
    }

    /// The whole file, read from offset 0.
    func readAll() throws(PDFError) -> [UInt8] {
        do throws(SystemCallError) {
            var info = stat()
            try SystemCall.retryingOnInterrupt("fstat", path: path) { fstat(descriptor, &info) }
            var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
            var done = 0
            while done < bytes.count {
                let count = try SystemCall.retryingOnInterrupt("pread", path: path) {
                    bytes.withUnsafeMutableBytes { raw in
                        pread(descriptor, raw.baseAddress! + done, raw.count - done, off_t(done))
                    }
                }
                if count == 0 { break }
                done += count
            }
            return Array(bytes[0..<done])
        } catch {
            throw PDFError(error)
        }
    }
}

extension PDFError {
    /// `.operationFailed` naming the failed call, with the system's text for its errno.
    init(_ error: SystemCallError) {
        self = .operationFailed(operation: error.call, reason: "\(error.reason) (errno \(error.errno))")
    }
}
