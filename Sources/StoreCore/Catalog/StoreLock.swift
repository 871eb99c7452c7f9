import Foundation
import QuireSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The exclusive lock of a store directory. One service per store: a second one is refused before it opens the
/// catalog.
///
/// The lock is `flock(LOCK_EX|LOCK_NB)` on a descriptor of **the store directory itself** (opened `O_RDONLY |
/// O_DIRECTORY | O_CLOEXEC`), which no one can take away: a lock on a file inside it would go with the file
/// (delete `quire.lock`, and the next service makes a new file and locks that one), while the directory cannot be
/// removed as long as it holds the store (`rmdir` refuses a directory that is not empty), and a lock is on the
/// inode, not the name. A store directory renamed, or emptied and made anew, under a running service is another
/// store: the service keeps working on the one it opened.
///
/// `<store>/quire.lock` is kept too, for what it tells: the holder's pid (which a refused service names), and a
/// second `flock` for the services of earlier versions, which lock only that file. The locks go with the
/// descriptors: ``release()``, the object's end, or the process's end (even a crash) frees them.
public final class StoreLock: Sendable {
    /// The lock file (the holder's pid).
    public let fileURL: URL
    /// The store directory's descriptor (the lock) and the lock file's.
    private let descriptors: Mutex<(directory: Int32, file: Int32)>
    /// Whether the directory itself is locked: false only on a file system whose `flock` needs a file open for
    /// writing (NFS), where the lock file's lock is all there is (and removing the file lets a second service in).
    public let locksDirectory: Bool

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
        // The directory first: it is the lock that holds whatever happens to the file.
        var directory: Int32
        do throws(SystemCallError) {
            directory = try SystemCall.retryingOnInterrupt("open", path: store) {
                open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            }
        } catch {
            throw .cannotLock(store: store, reason: "open of the store directory failed (\(error.reason.lowercased()))")
        }
        do throws(SystemCallError) {
            try SystemCall.retryingOnInterrupt("flock", path: store) { flock(directory, LOCK_EX | LOCK_NB) }
        } catch {
            SystemCall.close(directory)
            directory = -1
            switch error.errno {
            case EWOULDBLOCK: throw .inUse(store: store, pid: Self.readPID(atPath: lockPath))
            // A file system that locks only files open for writing (NFS emulates flock with POSIX locks): the
            // lock file's lock alone, as before.
            case EBADF, ENOLCK, EINVAL, EOPNOTSUPP: break
            default:
                throw .cannotLock(
                    store: store, reason: "flock of the store directory failed (\(error.reason.lowercased()))")
            }
        }
        let fd: Int32
        do throws(SystemCallError) {
            fd = try SystemCall.retryingOnInterrupt("open", path: lockPath) {
                open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            }
        } catch {
            if directory >= 0 { SystemCall.close(directory) }
            throw .cannotLock(store: store, reason: Self.reason(error))
        }
        do throws(SystemCallError) {
            try SystemCall.retryingOnInterrupt("flock", path: lockPath) { flock(fd, LOCK_EX | LOCK_NB) }
        } catch {
            // A service of an earlier version, which locks only the file.
            let holder = Self.readPID(fd)
            SystemCall.close(fd)
            if directory >= 0 { SystemCall.close(directory) }
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
            if directory >= 0 { SystemCall.close(directory) }
            throw .cannotLock(store: store, reason: Self.reason(error))
        }
        descriptors = Mutex((directory, fd))
        locksDirectory = directory >= 0
    }

    deinit { release() }

    /// Frees the lock (closes its descriptors); the file stays. Calling it again does nothing.
    public func release() {
        let (directory, fd) = descriptors.withLock { held -> (Int32, Int32) in
            defer { held = (-1, -1) }
            return held
        }
        // Outside the lock: no syscall under a lock.
        if fd >= 0 { SystemCall.close(fd) }
        if directory >= 0 { SystemCall.close(directory) }
    }

    /// The pid in the lock file at `path`, if there is one that holds one (it may have been removed).
    private static func readPID(atPath path: String) -> Int32? {
        guard
            let fd = try? SystemCall.retryingOnInterrupt(
                "open", path: path, { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) })
        else { return nil }
        defer { SystemCall.close(fd) }
        return readPID(fd)
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
