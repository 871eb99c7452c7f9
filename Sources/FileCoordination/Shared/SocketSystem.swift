import QuireSystem

#if canImport(Glibc)
import Glibc
#endif

/// The shared arbiter's use of the operating system: Unix sockets, `flock`, `poll`, pipes and file modes, each
/// through the package's one system-call layer (``SystemCall``: its `EINTR` loop, its ``SystemCallError``).
enum SocketSystem {
    /// The longest socket path `sockaddr_un` can hold (without its terminating NUL).
    static let maximumSocketPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// The real user id of this process.
    static var userID: UInt32 { getuid() }

    /// `lstat(2)`: type, owner and permission bits of a path, not following a final symlink.
    static func status(of path: String) throws(SystemCallError) -> (isDirectory: Bool, isSocket: Bool, owner: UInt32, mode: UInt32) {
        var info = stat()
        _ = try SystemCall.retryingOnInterrupt("lstat") { lstat(path, &info) }
        let type = info.st_mode & S_IFMT
        return (type == S_IFDIR, type == S_IFSOCK, info.st_uid, info.st_mode & 0o7777)
    }

    /// `mkdir(2)` with mode 0700; an existing path is not an error.
    static func makeDirectory(_ path: String) throws(SystemCallError) {
        do throws(SystemCallError) {
            try SystemCall.retryingOnInterrupt("mkdir", path: path) { mkdir(path, 0o700) }
        } catch where error.errno == EEXIST {}
    }

    /// `chmod(2)`.
    static func changeMode(_ path: String, to mode: mode_t) throws(SystemCallError) {
        _ = try SystemCall.retryingOnInterrupt("chmod") { chmod(path, mode) }
    }

    /// Sets `O_NONBLOCK` on `descriptor` (a listening socket handed over, polled then accepted without waiting).
    static func makeNonBlocking(_ descriptor: Int32) throws(SystemCallError) {
        let flags = try SystemCall.retryingOnInterrupt("fcntl") { fcntl(descriptor, F_GETFL) }
        _ = try SystemCall.retryingOnInterrupt("fcntl") { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }

    /// `unlink(2)`; a missing file is not an error.
    static func unlinkIfPresent(_ path: String) {
        _ = unlink(path)
    }

    /// Opens (creating, mode 0600) the lock file and tries to take an exclusive `flock` on it without waiting.
    /// Returns the descriptor holding the lock, or nil if another process holds it.
    static func tryExclusiveLock(_ path: String) throws(SystemCallError) -> Int32? {
        let descriptor = try SystemCall.retryingOnInterrupt("open") { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        do throws(SystemCallError) {
            _ = try SystemCall.retryingOnInterrupt("flock") { flock(descriptor, LOCK_EX | LOCK_NB) }
            return descriptor
        } catch where error.errno == EWOULDBLOCK {
            SystemCall.close(descriptor)
            return nil
        } catch {
            SystemCall.close(descriptor)
            throw error
        }
    }

    /// Replaces the contents of an open file with `text` (used for the lock file's pid and the client list);
    /// best effort: a failure leaves what was written so far.
    ///
    /// The text is written over the old contents first, and the file is cut to its length only if it was longer:
    /// a truncation costs a journal transaction on ext4 (about 50 µs, four of them were 3 % of a self-hosting
    /// `quire exec`), and a pid usually replaces one of the same length. A process that dies in between leaves the
    /// new text followed by the old tail: a successor host may then await a stray pid, at most for its grace
    /// period, where cutting first could leave the client list empty and the successor awaiting nobody.
    static func replaceContents(of descriptor: Int32, with text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = try? SystemCall.retryingOnInterrupt("pwrite") {
                    pwrite(descriptor, raw.baseAddress! + offset, raw.count - offset, off_t(offset))
                }
                guard let written, written > 0 else { return }
                offset += written
            }
        }
        var status = stat()
        let measured = (try? SystemCall.retryingOnInterrupt("fstat") { fstat(descriptor, &status) }) != nil
        guard !measured || Int(status.st_size) > bytes.count else { return }
        _ = try? SystemCall.retryingOnInterrupt("ftruncate") { ftruncate(descriptor, off_t(bytes.count)) }
    }

    /// The contents of a small file, or nil if it cannot be opened.
    static func readSmallFile(_ path: String, limit: Int = 1 << 20) -> String? {
        guard let descriptor = try? SystemCall.retryingOnInterrupt("open", path: path, { open(path, O_RDONLY | O_CLOEXEC) })
        else { return nil }
        defer { SystemCall.close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { raw in
                try? SystemCall.retryingOnInterrupt("read", path: path) { Glibc.read(descriptor, raw.baseAddress, raw.count) }
            }
            guard let count, count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a process with this pid exists (`kill(pid, 0)`; a process of another user counts).
    static func processExists(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || Glibc.errno == EPERM)
    }

    /// Fills a `sockaddr_un` for `path` and calls `body` with it; throws `ENAMETOOLONG` for a long path.
    private static func withAddress<R>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemCallError) -> R
    ) throws(SystemCallError) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumSocketPathLength else { throw SystemCallError(call: "bind", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return try withUnsafePointer(to: &address) { pointer throws(SystemCallError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemCallError) in
                try body(address, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// A non-blocking listening Unix stream socket bound at `path` (a stale file there is replaced), mode 0600.
    /// The path's length is checked against `sockaddr_un` with room for the temporary suffix.
    static func listen(at path: String) throws(SystemCallError) -> Int32 {
        let descriptor = try SystemCall.retryingOnInterrupt("socket") {
            socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        }
        do throws(SystemCallError) {
            // Bound under a temporary name and renamed into place once it is 0600, so that no client ever sees
            // the socket with the mode the umask gave it.
            let temporary = "\(path).\(getpid()).new"
            unlinkIfPresent(temporary)
            _ = try withAddress(temporary) { address, length throws(SystemCallError) in
                try SystemCall.retryingOnInterrupt("bind", path: temporary) { Glibc.bind(descriptor, address, length) }
            }
            do throws(SystemCallError) {
                try changeMode(temporary, to: 0o600)
                _ = try SystemCall.retryingOnInterrupt("listen") { Glibc.listen(descriptor, 512) }
                _ = try SystemCall.retryingOnInterrupt("rename") { Glibc.rename(temporary, path) }
            } catch {
                unlinkIfPresent(temporary)
                throw error
            }
            return descriptor
        } catch {
            SystemCall.close(descriptor)
            throw error
        }
    }

    /// A blocking Unix stream socket connected to `path`.
    static func connect(to path: String) throws(SystemCallError) -> Int32 {
        let descriptor = try SystemCall.retryingOnInterrupt("socket") {
            socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        do throws(SystemCallError) {
            _ = try withAddress(path) { address, length throws(SystemCallError) in
                try SystemCall.retryingOnInterrupt("connect", path: path) { Glibc.connect(descriptor, address, length) }
            }
            return descriptor
        } catch {
            SystemCall.close(descriptor)
            throw error
        }
    }

    /// Accepts a connection as a non-blocking, close-on-exec socket, or nil when none is pending.
    static func accept(_ listener: Int32) throws(SystemCallError) -> Int32? {
        try SystemCall.accept(listener, .nonBlocking)
    }

    /// The process and user at the other end of a Unix socket (`SO_PEERCRED`).
    static func peerCredentials(of descriptor: Int32) throws(SystemCallError) -> (pid: Int32, uid: UInt32) {
        let credentials = try SystemCall.peerCredentials(of: descriptor)
        return (credentials.pid, credentials.uid)
    }

    /// Reads into `buffer`: the byte count, 0 at end of stream, nil when a non-blocking socket has nothing.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int? {
        do throws(SystemCallError) {
            return try SystemCall.retryingOnInterrupt("read") { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
        } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
            return nil
        }
    }

    /// Writes what a non-blocking socket takes of `bytes` now; never raises SIGPIPE.
    static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
        do throws(SystemCallError) {
            return try SystemCall.retryingOnInterrupt("send") { Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
        } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
            return 0
        }
    }

    /// Writes what a socket takes of `bytes` now, without waiting even if the socket is blocking
    /// (`MSG_DONTWAIT`): the count written, 0 when it has no room; never raises SIGPIPE.
    static func sendWithoutWaiting(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
        do throws(SystemCallError) {
            return try SystemCall.retryingOnInterrupt("send") {
                Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
        } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
            return 0
        }
    }

    /// Reads what a socket holds into `buffer` without waiting even if the socket is blocking (`MSG_DONTWAIT`):
    /// the byte count, 0 at end of stream, nil when there is nothing yet.
    static func receiveWithoutWaiting(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemCallError) -> Int? {
        do throws(SystemCallError) {
            return try SystemCall.retryingOnInterrupt("recv") {
                Glibc.recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
            }
        } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
            return nil
        }
    }

    /// Reads what a blocking socket holds into `buffer`, waiting for it at most `milliseconds` (a `poll` first,
    /// so the socket's own settings do not matter): the byte count, 0 at end of stream, nil when nothing came.
    static func receiveWaiting(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, milliseconds: Int32 = 50,
        spinning: Duration = .zero
    ) throws(SystemCallError) -> Int? {
        if spinning > .zero, SystemCall.pollWithoutSleeping(descriptor, for: spinning) {
            return try receiveWithoutWaiting(descriptor, into: buffer)
        }
        var entry = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        try poll(&entry, timeout: milliseconds)
        guard entry[0].revents != 0 else { return nil }
        return try receiveWithoutWaiting(descriptor, into: buffer)
    }

    /// Writes all of `bytes` to a blocking socket; never raises SIGPIPE.
    static func sendAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            offset += try SystemCall.retryingOnInterrupt("send") { Glibc.send(descriptor, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// Writes all of `bytes` to a blocking socket; never raises SIGPIPE.
    static func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(SystemCallError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(SystemCallError) in try sendAll(descriptor, raw) } }.get()
    }

    /// Writes what a non-blocking socket takes now of `bytes` from `start` on.
    static func send(_ descriptor: Int32, _ bytes: [UInt8], from start: Int) throws(SystemCallError) -> Int {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(SystemCallError) in try send(descriptor, UnsafeRawBufferPointer(rebasing: raw[start...])) }
        }.get()
    }

    /// Shuts a socket down in both directions, waking a thread blocked reading it.
    static func shutDown(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// A non-blocking, close-on-exec pipe: (read end, write end).
    static func makeWakePipe() throws(SystemCallError) -> (Int32, Int32) {
        try SystemCall.makePipe(.nonBlocking)
    }

    /// Writes one byte to a wake pipe (async-signal-safe).
    static func wake(_ descriptor: Int32) {
        var byte: UInt8 = 1
        _ = Glibc.write(descriptor, &byte, 1)
    }

    /// Empties a wake pipe.
    static func drainWakePipe(_ descriptor: Int32) {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { Glibc.read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// `poll(2)` on `descriptors`; `timeout` in milliseconds, -1 to wait forever. Returns when something is
    /// ready, the time is up, or a signal interrupts (then nothing is marked ready).
    static func poll(_ descriptors: inout [pollfd], timeout: Int32) throws(SystemCallError) {
        try SystemCall.poll(&descriptors, timeout: timeout)
    }

    /// Sleeps for a short while (`nanosleep`), used only between connection attempts with a deadline.
    static func pause(microseconds: Int) {
        SystemCall.sleep(for: .microseconds(microseconds))
    }

    /// Sets `SO_RCVTIMEO` (0 waits forever).
    static func setReceiveTimeout(_ descriptor: Int32, seconds: Int) {
        var value = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// `getpid(2)`.
    static var processID: Int32 { getpid() }

    /// This process's command line from `/proc/self/cmdline`, arguments separated by spaces.
    static var commandLine: String {
        let raw = readSmallFile("/proc/self/cmdline", limit: 4096) ?? ""
        return String(raw.map { $0 == "\0" ? " " : $0 }).trimmingTrailingSpaces()
    }
}

extension String {
    /// The string without trailing spaces.
    fileprivate func trimmingTrailingSpaces() -> String {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " { end = index(before: end) }
        return String(self[..<end])
    }
}

/// A socket's read buffer: 64 KiB, allocated once and never zeroed (only the bytes a read wrote are used; zeroing
/// and faulting in the whole buffer cost a hosting `quire exec` about 1 % of its run), freed with its owner.
final class ReadBuffer: @unchecked Sendable {
    /// The memory; touched by one thread at a time (its owner's reader).
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)

    deinit { bytes.deallocate() }
}
