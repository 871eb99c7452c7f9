import Foundation
import QuireSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The exclusive lock of a store directory: `<store>/quire.lock`, held with `flock(LOCK_EX|LOCK_NB)` on a
/// descriptor opened with `O_CLOEXEC`, and holding the holder's pid. One service per store: a second one is
/// refused before it opens the catalog. The lock goes with the descriptor: ``release()``, the object's end, or
/// the process's end (even a crash) frees it.
public final class StoreLock: Sendable {
    /// The lock file.
    public let fileURL: URL
    private let descriptor: Mutex<Int32>

    /// Takes the lock of `storeDirectory` (created, readable by its owner only, when missing) and writes this
    /// process's pid into the lock file.
    /// - Throws: ``StoreLockError/inUse(store:pid:)`` when another process (or another service of this one) holds
    ///   it; ``StoreLockError/cannotLock(store:reason:)`` when the directory or the file cannot be made, opened or
    ///   locked.
    public init(storeDirectory: URL) throws(StoreLockError) {
        let store = storeDirectory.path
        do {
            try FileManager.default.createDirectory(
                at: storeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotLock(store: store, reason: "cannot create the directory (\(error.localizedDescription))")
        }
        let lockPath = storeDirectory.appendingPathComponent("quire.lock", isDirectory: false).path
        fileURL = URL(fileURLWithPath: lockPath, isDirectory: false)
        let fd: Int32
        do throws(SystemCallError) {
            fd = try SystemCall.retryingOnInterrupt("open", path: lockPath) {
                open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            }
        } catch {
            throw .cannotLock(store: store, reason: Self.reason(error))
        }
        do throws(SystemCallError) {
            try SystemCall.retryingOnInterrupt("flock", path: lockPath) { flock(fd, LOCK_EX | LOCK_NB) }
        } catch {
            let holder = Self.readPID(fd)
            SystemCall.close(fd)
            if error.errno == EWOULDBLOCK { throw .inUse(store: store, pid: holder) }
            throw .cannotLock(store: store, reason: Self.reason(error))
        }
        let pid = Array("\(getpid())\n".utf8)
        do throws(SystemCallError) {
            try SystemCall.retryingOnInterrupt("ftruncate", path: lockPath) { ftruncate(fd, 0) }
            let written = try SystemCall.retryingOnInterrupt("write", path: lockPath) { pwrite(fd, pid, pid.count, 0) }
            if written != pid.count { throw SystemCallError(call: "write", errno: EIO, path: lockPath) }
        } catch {
            SystemCall.close(fd)
            throw .cannotLock(store: store, reason: Self.reason(error))
        }
        descriptor = Mutex(fd)
    }

    deinit { release() }

    /// Frees the lock (closes its descriptor); the file stays. Calling it again does nothing.
    public func release() {
        let fd = descriptor.withLock { fd -> Int32 in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { SystemCall.close(fd) }  // outside the lock: no syscall under a lock
    }

    /// The pid in the lock file, if it holds one.
    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = (try? SystemCall.retryingOnInterrupt("pread") { pread(fd, &buffer, buffer.count, 0) }) ?? 0
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self)
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// "CALL of quire.lock failed (strerror)".
    private static func reason(_ error: SystemCallError) -> String {
        "\(error.call) of quire.lock failed (\(error.reason.lowercased()))"
    }
}

/// Why the store directory could not be locked.
public enum StoreLockError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another `quire serve` (whose pid the lock file holds, when it could be read) uses the store.
    case inUse(store: String, pid: Int32?)
    /// The store directory or its lock file could not be made, opened or locked; `reason` says which call failed
    /// and why.
    case cannotLock(store: String, reason: String)

    /// One line naming the store and what to do.
    public var description: String {
        switch self {
        case .inUse(let store, let pid):
            let holder = pid.map { " (pid \($0))" } ?? ""
            return "the store \(store) is in use by another quire serve\(holder)"
        case .cannotLock(let store, let reason):
            return "cannot lock the store \(store): \(reason)"
        }
    }
}
