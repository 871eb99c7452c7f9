import QuireSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The system calls of upload snapshots: descriptors opened without following links, exact reads, copies.
/// Every call goes through the package's one system-call layer (``SystemCall``: `EINTR` retried, `close` never);
/// failures become ``SnapshotError``s naming the path.
enum SnapshotFile {
    /// The size of one read while copying or archiving.
    static let chunkSize = 1 << 20

    /// Runs `call` through ``SystemCall/retryingOnInterrupt(_:path:_:)``; -1 becomes a ``SnapshotError`` naming
    /// `path`, or the clearer one `ifFails` makes of the errno.
    @inline(__always)
    static func retrying<T: FixedWidthInteger>(
        _ name: String, path: String, _ call: () -> T, ifFails explain: (Int32) -> SnapshotError? = { _ in nil }
    ) throws(SnapshotError) -> T {
        do {
            return try SystemCall.retryingOnInterrupt(name, path: path, call)
        } catch {
            throw explain(error.errno) ?? SnapshotError(path: path, call: name, errno: error.errno)
        }
    }

    /// `fstat(2)`.
    static func status(of descriptor: Int32, path: String) throws(SnapshotError) -> stat {
        var info = stat()
        _ = try retrying("fstat", path: path) { fstat(descriptor, &info) }
        return info
    }

    /// Reads exactly `count` bytes at `offset`; a file that ends sooner changed while it was read (without
    /// coordination) and is refused rather than archived with a size its header contradicts.
    static func read(_ descriptor: Int32, count: Int, at offset: Int64, path: String) throws(SnapshotError) -> Data {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        var done = 0
        do throws(SnapshotError) {
            while done < count {
                let got = try retrying("pread", path: path) {
                    pread(descriptor, buffer + done, count - done, off_t(offset) + off_t(done))
                }
                if got == 0 { throw SnapshotError(path: path, reason: "shrank while it was being snapshotted") }
                done += got
            }
        } catch {
            buffer.deallocate()
            throw error
        }
        return Data(bytesNoCopy: buffer, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// Copies the open regular file `source` (to its end) into a new file at `destination`, with the source's
    /// permission bits and modification time.
    static func copy(
        _ source: Int32, from sourcePath: String, to destination: String, like info: stat
    ) throws(SnapshotError) {
        let output = try retrying("open", path: destination) {
            open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, info.st_mode & 0o777)
        }
        defer { close(output) }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let got = try retrying("read", path: sourcePath) { Glibc.read(source, buffer, chunkSize) }
            if got == 0 { break }
            var written = 0
            while written < got {
                written += try retrying("write", path: destination) {
                    write(output, buffer + written, got - written)
                }
            }
        }
        var times = [info.st_atim, info.st_mtim]
        _ = try retrying("futimens", path: destination) { futimens(output, &times) }
    }
}
