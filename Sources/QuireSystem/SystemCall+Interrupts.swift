import CQuireLinux

#if canImport(Glibc)
import Glibc
#endif

/// The calls whose `EINTR` handling is more than ``SystemCall/retryingOnInterrupt(_:path:_:)``: a call that returns
/// its error number, a sleep that resumes with the time left, a `poll` that an interruption ends early, and the
/// loops over short reads and writes. They live here so that no other module retries `EINTR` itself.
extension SystemCall {
    /// Runs `body`, a call that returns its error number instead of setting `errno` (`posix_spawn`, the
    /// `pthread_*` calls), until it returns something other than `EINTR`; returns that (0 on success).
    @inline(__always)
    public static func retryingReturnedInterrupt(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result != EINTR { return result }
        }
    }

    /// Sleeps for `duration` with `nanosleep`, sleeping the time left again after a signal.
    public static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(max(0, seconds)), tv_nsec: Int(max(0, attoseconds / 1_000_000_000)))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && Glibc.errno == EINTR { request = remaining }
    }

    /// `poll(2)` on `descriptors`; `timeout` in milliseconds, -1 to wait forever. Returns how many are ready: 0 when
    /// the time is up or a signal interrupted the wait (then no `revents` is set; the caller decides whether to
    /// wait again, with the time it has left).
    /// - Throws: ``SystemCallError`` for any failure but `EINTR`.
    @discardableResult
    public static func poll(_ descriptors: inout [pollfd], timeout: Int32) throws(SystemCallError) -> Int {
        let result = descriptors.withUnsafeMutableBufferPointer {
            Glibc.poll($0.baseAddress, nfds_t($0.count), timeout)
        }
        if result >= 0 { return Int(result) }
        let code = Glibc.errno
        guard code == EINTR else { throw SystemCallError(call: "poll", errno: code) }
        for index in descriptors.indices { descriptors[index].revents = 0 }
        return 0
    }

    /// A new memory file (`memfd_create` with `MFD_CLOEXEC | MFD_ALLOW_SEALING`) holding `contents`, sealed against
    /// every change (shrinking, growing, writing, sealing) when `sealed`. Nothing is left open when it fails.
    /// - Throws: ``SystemCallError`` naming `memfd_create`, `write` or `fcntl`.
    public static func memoryFile(name: String, contents: UnsafeRawBufferPointer, sealed: Bool) throws(SystemCallError)
        -> Int32
    {
        let descriptor = try retryingOnInterrupt("memfd_create", path: name) { CQuire_memfdCreate(name) }
        do throws(SystemCallError) {
            var written = 0
            while written < contents.count {
                let count = try retryingOnInterrupt("write", path: name) {
                    Glibc.write(descriptor, contents.baseAddress! + written, contents.count - written)
                }
                guard count > 0 else { throw SystemCallError(call: "write", errno: EIO, path: name) }
                written += count
            }
            if sealed {
                try retryingOnInterrupt("fcntl", path: name) { CQuire_sealCompletely(descriptor) }
            }
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Reads exactly `buffer.count` bytes from offset 0 of `descriptor` (`pread`, short reads continued).
    /// - Throws: ``SystemCallError`` naming `pread`; `EIO` when the file ends first.
    public static func readExactly(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer)
        throws(SystemCallError)
    {
        var filled = 0
        while filled < buffer.count {
            let count = try retryingOnInterrupt("pread") {
                pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(filled))
            }
            guard count > 0 else { throw SystemCallError(call: "pread", errno: EIO) }
            filled += count
        }
    }
}
