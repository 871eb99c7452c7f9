import QuireSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The exclusive `flock` on an item's `lock` file in the versions store, held while one process changes that
/// item's versions so that read-modify-write updates from several processes never interleave.
///
/// Every call goes through the package's one system-call layer (``SystemCall``): `EINTR` is retried, `close`
/// (which releases the lock) never is.
struct ItemVersionLock {
    /// Runs `body` while holding the lock on `path`, creating the lock file if needed.
    static func withLock<R>(at path: String, _ body: () throws -> R) throws -> R {
        let descriptor = try retrying("open", path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        defer { SystemCall.close(descriptor) }
        _ = try retrying("flock", path) { flock(descriptor, LOCK_EX) }
        return try body()
    }

    /// Runs `call` through ``SystemCall/retryingOnInterrupt(_:path:_:)``; -1 becomes
    /// ``FileVersionError/systemCallFailed``.
    static func retrying(_ name: String, _ path: String, _ call: () -> Int32) throws -> Int32 {
        do {
            return try SystemCall.retryingOnInterrupt(name, path: path, call)
        } catch {
            throw FileVersionError.systemCallFailed(call: name, path: path, errno: error.errno)
        }
    }
}
