import CQuireLinux

#if canImport(Glibc)
import Glibc
#endif

/// Quire's one system-call layer: the one `EINTR` loop, the one way to close a descriptor, and the calls that
/// create descriptors, each close-on-exec from the moment it exists (so that no child a thread of this process
/// starts meanwhile, such as `quire exec`'s, inherits one).
///
/// Glibc-only calls (`accept4`, `pipe2`, `mkostemps`, `SO_PEERCRED`, `openat2`, …) come from the `CQuireLinux`
/// shim, type-checked; nothing is looked up with `dlsym`.
public enum SystemCall {
    /// Runs `body` until it does not fail with `EINTR`; any other result of -1 becomes a ``SystemCallError``
    /// carrying `errno`, `call` and `path`. Never use it for `close`, which must not be retried.
    /// - Throws: ``SystemCallError`` when `body` returns -1 with an `errno` other than `EINTR`.
    @inline(__always)
    @discardableResult
    public static func retryingOnInterrupt<Value: FixedWidthInteger>(
        _ call: String, path: String? = nil, _ body: () -> Value
    ) throws(SystemCallError) -> Value {
        while true {
            let value = body()
            if value != -1 { return value }
            let code = Glibc.errno
            if code != EINTR { throw SystemCallError(call: call, errno: code, path: path) }
        }
    }

    /// Polls `descriptor` for input without sleeping, yielding the processor between polls, until it is
    /// readable (or hung up, or in error) or `limit` has passed; the caller then reads or waits as usual. On a
    /// 2-vCPU virtual machine a thread that sleeps costs 40-50 µs to wake (its processor halts): a short wait
    /// that is expected to end soon is cheaper polled. Returns whether the descriptor became ready.
    @discardableResult
    public static func pollWithoutSleeping(_ descriptor: Int32, for limit: Duration) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return withUnsafeMutablePointer(to: &entry) {
            pollWithoutSleeping(UnsafeMutableBufferPointer(start: $0, count: 1), for: limit)
        }
    }

    /// Polls `descriptors` for the events each asks for, without sleeping, yielding the processor between polls,
    /// until one is ready or `limit` has passed (see ``pollWithoutSleeping(_:for:)-(Int32,_)``). Returns whether one
    /// became ready; their `revents` then say which, as `poll` leaves them.
    @discardableResult
    public static func pollWithoutSleeping(_ descriptors: inout [pollfd], for limit: Duration) -> Bool {
        descriptors.withUnsafeMutableBufferPointer { pollWithoutSleeping($0, for: limit) }
    }

    /// ``pollWithoutSleeping(_:for:)-(Int32,_)`` that also says how much processor time the calling thread got while
    /// it polled (`CLOCK_THREAD_CPUTIME_ID` before and after): whether the poll had a processor to itself, which
    /// ``AdaptivePollWindow`` weighs. A `limit` of zero polls nothing and answers `(false, .zero)`.
    public static func pollWithoutSleepingMeasured(_ descriptor: Int32, for limit: Duration) -> (
        ready: Bool, processorTime: Duration
    ) {
        guard limit > .zero else { return (false, .zero) }
        let before = threadProcessorTime()
        let ready = pollWithoutSleeping(descriptor, for: limit)
        return (ready, threadProcessorTime() - before)
    }

    /// The processor time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`).
    private static func threadProcessorTime() -> Duration {
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return .zero }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// The loop of both forms: no allocation, as it runs on every PDF request and every coordinated access.
    private static func pollWithoutSleeping(_ descriptors: UnsafeMutableBufferPointer<pollfd>, for limit: Duration)
        -> Bool
    {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            for index in descriptors.indices { descriptors[index].revents = 0 }
            let ready = Glibc.poll(descriptors.baseAddress, nfds_t(descriptors.count), 0)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return false }
            sched_yield()
        }
        return false
    }

    /// `path` made absolute as `URL(fileURLWithPath:)` makes it: an absolute path as it is, a relative one after
    /// the working directory (`getcwd`; `/` when it cannot be had) and a slash. Nothing is normalised.
    public static func absolutePath(_ path: String) -> String {
        if path.utf8.first == UInt8(ascii: "/") { return path }
        guard let directory = getcwd(nil, 0) else { return "/" + path }
        defer { free(directory) }
        let prefix = String(cString: directory)
        return prefix == "/" ? "/" + path : prefix + "/" + path
    }

    /// The names in the directory at `path`, without `.` and `..`, in the order `readdir` gives them.
    /// - Throws: ``SystemCallError`` when the directory cannot be opened or read.
    public static func directoryEntries(_ path: String) throws(SystemCallError) -> [String] {
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

    /// Closes a descriptor once. Never retried: on Linux the descriptor is released even when `close` reports
    /// `EINTR`, and a retry could close one another thread has just been given. Errors are ignored.
    public static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// A new pipe, `(read end, write end)`, close-on-exec from its creation (`pipe2` with `O_CLOEXEC`), and
    /// non-blocking at both ends when `options` asks. Nothing stays open when it fails.
    /// - Throws: ``SystemCallError`` (`pipe2`), e.g. `EMFILE`.
    public static func makePipe(_ options: DescriptorOptions = []) throws(SystemCallError) -> (read: Int32, write: Int32) {
        var ends: (Int32, Int32) = (-1, -1)
        try withUnsafeMutableBytes(of: &ends) { raw throws(SystemCallError) in
            let pointer = raw.baseAddress!.assumingMemoryBound(to: Int32.self)
            try retryingOnInterrupt("pipe2") { CQuire_pipe2(pointer, O_CLOEXEC | options.fileFlags) }
        }
        return ends
    }

    /// Accepts a pending connection on `listener` as a close-on-exec socket (`accept4` with `SOCK_CLOEXEC`),
    /// non-blocking when `options` asks; nil when none is pending (`EAGAIN`) or the peer gave up first
    /// (`ECONNABORTED`).
    /// - Throws: ``SystemCallError`` (`accept4`) for any other failure, e.g. `EMFILE`.
    public static func accept(_ listener: Int32, _ options: DescriptorOptions = []) throws(SystemCallError) -> Int32? {
        do throws(SystemCallError) {
            return try retryingOnInterrupt("accept4") {
                CQuire_accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | options.socketFlags)
            }
        } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK || error.errno == ECONNABORTED {
            return nil
        }
    }

    /// The process, user and group at the other end of a Unix socket (`getsockopt` of `SO_PEERCRED`).
    /// - Throws: ``SystemCallError`` (`getsockopt`), e.g. `ENOTCONN`.
    public static func peerCredentials(of socket: Int32) throws(SystemCallError) -> (pid: Int32, uid: UInt32, gid: UInt32) {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        try retryingOnInterrupt("getsockopt") { CQuire_peerCredentials(socket, &pid, &uid, &gid) }
        return (pid, uid, gid)
    }

    /// A duplicate of `descriptor`, close-on-exec from its creation (`fcntl` with `F_DUPFD_CLOEXEC`).
    /// - Throws: ``SystemCallError`` (`fcntl`), e.g. `EBADF` or `EMFILE`.
    public static func duplicate(_ descriptor: Int32, path: String? = nil) throws(SystemCallError) -> Int32 {
        try retryingOnInterrupt("fcntl", path: path) { fcntl(descriptor, F_DUPFD_CLOEXEC, 0) }
    }

    /// Creates a new file, mode 0600, from `template` (a path whose last component holds `XXXXXX` followed by
    /// `suffixLength` more bytes), close-on-exec from its creation (`mkostemps` with `O_CLOEXEC`). Returns the
    /// descriptor and the path made.
    /// - Throws: ``SystemCallError`` (`mkostemps`, with the template's directory as its path).
    public static func makeTemporaryFile(template: String, suffixLength: Int = 0) throws(SystemCallError)
        -> (descriptor: Int32, path: String)
    {
        var bytes = Array(template.utf8CString)
        let directory = String(template[..<(template.lastIndex(of: "/") ?? template.startIndex)])
        let descriptor = try bytes.withUnsafeMutableBufferPointer { buffer throws(SystemCallError) in
            try retryingOnInterrupt("mkostemps", path: directory.isEmpty ? "." : directory) {
                CQuire_mkostemps(buffer.baseAddress!, Int32(suffixLength), O_CLOEXEC)
            }
        }
        return (descriptor, String(decoding: bytes.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}

/// Options of a descriptor a ``SystemCall`` creates (close-on-exec is not among them: it is always set).
public struct DescriptorOptions: OptionSet, Sendable, Hashable {
    /// The raw bits (this type's own, not a C constant).
    public var rawValue: UInt8

    /// Creates options from their raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Reads and writes that would block fail with `EAGAIN` instead. The corresponding C constants are
    /// `O_NONBLOCK` and `SOCK_NONBLOCK`.
    public static let nonBlocking = Self(rawValue: 1 << 0)

    /// The `O_*` flags for `pipe2`.
    var fileFlags: Int32 { contains(.nonBlocking) ? O_NONBLOCK : 0 }

    /// The `SOCK_*` flags for `accept4`.
    var socketFlags: Int32 { contains(.nonBlocking) ? Int32(SOCK_NONBLOCK.rawValue) : 0 }
}
