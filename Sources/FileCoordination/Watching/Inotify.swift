#if canImport(Glibc)
    import Glibc
#endif

/// The one place where the watcher calls the operating system: inotify, `poll`, the wake-up pipe and `stat`.
///
/// Every call that can be interrupted is retried on `EINTR`; a failure becomes an ``InotifyError`` that names
/// the call and the path. `close` is never retried.
enum Inotify {
    /// The events every directory watch asks for. `IN_ONLYDIR` refuses a path that is not a directory;
    /// `IN_EXCL_UNLINK` drops events on children that were unlinked but are still open.
    static let directoryMask: InotifyEventMask = [
        .modify, .attributes, .closeWrite, .create, .delete, .movedFrom, .movedTo, .deleteSelf, .moveSelf,
        .onlyDirectory, .excludeUnlinked,
    ]

    /// Creates an inotify instance with `IN_NONBLOCK | IN_CLOEXEC`.
    static func initialize() throws(InotifyError) -> Int32 {
        try valueOrErrno("inotify_init1", path: nil) { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
    }

    /// Watches `directory` with ``directoryMask``; returns the watch descriptor (the same one for a directory
    /// that is already watched by this instance).
    static func addWatch(_ descriptor: Int32, directory: String) throws(InotifyError) -> Int32 {
        try valueOrErrno("inotify_add_watch", path: directory) {
            inotify_add_watch(descriptor, directory, directoryMask.rawValue)
        }
    }

    /// Removes a watch. `EINVAL` (the kernel already dropped it) is expected and ignored.
    static func removeWatch(_ descriptor: Int32, _ watch: Int32) {
        _ = try? valueOrErrno("inotify_rm_watch", path: nil) { inotify_rm_watch(descriptor, watch) }
    }

    /// Reads what is queued on a non-blocking descriptor into `buffer`; nil when nothing is queued (`EAGAIN`).
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(InotifyError) -> Int? {
        do {
            return try valueOrErrno("read", path: nil) { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
        } catch let error where error.code == EAGAIN || error.code == EWOULDBLOCK {
            return nil
        }
    }

    /// Waits until one of `descriptors` is readable or `timeout` milliseconds pass (-1: no limit).
    /// An interrupted wait returns at once, so the caller recomputes its deadline instead of waiting again.
    static func poll(_ descriptors: inout [pollfd], timeout: Int32) throws(InotifyError) {
        let result = descriptors.withUnsafeMutableBufferPointer {
            Glibc.poll($0.baseAddress, nfds_t($0.count), timeout)
        }
        if result < 0 && errno != EINTR { throw InotifyError(syscall: "poll", code: errno, path: nil) }
    }

    /// A non-blocking, close-on-exec pipe used to wake the reader thread.
    static func makeWakePipe() throws(InotifyError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        _ = try valueOrErrno("pipe", path: nil) { pipe(&ends) }
        for end in ends {
            _ = try valueOrErrno("fcntl", path: nil) { fcntl(end, F_SETFL, O_NONBLOCK) }
            _ = try valueOrErrno("fcntl", path: nil) { fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        return (ends[0], ends[1])
    }

    /// Writes one byte to the wake-up pipe; a full pipe already holds a wake-up, so `EAGAIN` is ignored.
    static func wake(_ descriptor: Int32) {
        var byte: UInt8 = 1
        _ = try? valueOrErrno("write", path: nil) { Glibc.write(descriptor, &byte, 1) }
    }

    /// Empties the wake-up pipe.
    static func drain(_ descriptor: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while let count = try? valueOrErrno("read", path: nil, { Glibc.read(descriptor, &bytes, bytes.count) }),
            count > 0
        {}
    }

    /// Closes a descriptor; never retried (after `EINTR` the descriptor is already closed on Linux).
    static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// What `stat(2)` says about `path` now, or nil if it cannot be stat'ed (missing, no permission).
    static func snapshot(of path: String) -> FileSnapshot? {
        var info = stat()
        guard (try? valueOrErrno("stat", path: path, { stat(path, &info) })) != nil else { return nil }
        return FileSnapshot(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            mode: UInt32(info.st_mode),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
    }

    /// Runs `call`, retrying on `EINTR`, and turns -1 into an ``InotifyError`` carrying `errno`.
    static func valueOrErrno<Value: FixedWidthInteger>(
        _ syscall: String, path: String?, _ call: () -> Value
    ) throws(InotifyError) -> Value {
        while true {
            let value = call()
            if value != -1 { return value }
            let code = errno
            if code != EINTR { throw InotifyError(syscall: syscall, code: code, path: path) }
        }
    }
}

/// A failed system call of the watcher: the call, its errno and the path it was about.
struct InotifyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system call that failed, e.g. `inotify_add_watch`.
    var syscall: String
    /// The `errno` it set.
    var code: Int32
    /// The path the call was about, if any.
    var path: String?

    /// What failed, on which path, and what to do about it.
    var description: String {
        let target = path.map { " on \($0)" } ?? ""
        var text = "\(syscall) failed\(target): \(String(cString: strerror(code))) (errno \(code))"
        switch (syscall, code) {
        case ("inotify_add_watch", ENOSPC):
            text += "; the per-user inotify watch limit is exhausted: raise fs.inotify.max_user_watches"
        case ("inotify_init1", EMFILE):
            text += "; the per-user inotify instance limit is exhausted: raise fs.inotify.max_user_instances"
        case ("inotify_add_watch", ENOENT):
            text += "; the directory does not exist (yet)"
        default:
            break
        }
        return text
    }
}

/// Flags of inotify events and watches.
struct InotifyEventMask: OptionSet, Sendable, Hashable {
    /// The raw `uint32_t` mask.
    var rawValue: UInt32

    /// Creates a mask from its raw value.
    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A file was written or truncated. The corresponding C constant is `IN_MODIFY`.
    static let modify = Self(rawValue: UInt32(IN_MODIFY))
    /// Metadata changed (permissions, timestamps, owner, links). The corresponding C constant is `IN_ATTRIB`.
    static let attributes = Self(rawValue: UInt32(IN_ATTRIB))
    /// A file opened for writing was closed. The corresponding C constant is `IN_CLOSE_WRITE`.
    static let closeWrite = Self(rawValue: UInt32(IN_CLOSE_WRITE))
    /// An entry was created. The corresponding C constant is `IN_CREATE`.
    static let create = Self(rawValue: UInt32(IN_CREATE))
    /// An entry was deleted. The corresponding C constant is `IN_DELETE`.
    static let delete = Self(rawValue: UInt32(IN_DELETE))
    /// An entry was renamed away from this name. The corresponding C constant is `IN_MOVED_FROM`.
    static let movedFrom = Self(rawValue: UInt32(IN_MOVED_FROM))
    /// An entry was renamed to this name. The corresponding C constant is `IN_MOVED_TO`.
    static let movedTo = Self(rawValue: UInt32(IN_MOVED_TO))
    /// The watched directory itself was deleted. The corresponding C constant is `IN_DELETE_SELF`.
    static let deleteSelf = Self(rawValue: UInt32(IN_DELETE_SELF))
    /// The watched directory itself was moved. The corresponding C constant is `IN_MOVE_SELF`.
    static let moveSelf = Self(rawValue: UInt32(IN_MOVE_SELF))
    /// The file system holding the watch was unmounted. The corresponding C constant is `IN_UNMOUNT`.
    static let unmount = Self(rawValue: UInt32(IN_UNMOUNT))
    /// The event queue overflowed and events were lost. The corresponding C constant is `IN_Q_OVERFLOW`.
    static let queueOverflow = Self(rawValue: UInt32(IN_Q_OVERFLOW))
    /// The watch was removed (explicitly or by the kernel). The corresponding C constant is `IN_IGNORED`.
    static let ignored = Self(rawValue: UInt32(IN_IGNORED))
    /// The subject of the event is a directory. The corresponding C constant is `IN_ISDIR`.
    static let isDirectory = Self(rawValue: UInt32(IN_ISDIR))
    /// Watch only if the path is a directory. The corresponding C constant is `IN_ONLYDIR`.
    static let onlyDirectory = Self(rawValue: UInt32(IN_ONLYDIR))
    /// No events for children after they are unlinked. The corresponding C constant is `IN_EXCL_UNLINK`.
    static let excludeUnlinked = Self(rawValue: UInt32(IN_EXCL_UNLINK))
}

/// What `stat(2)` said about a path; the fallback poller compares two of these.
struct FileSnapshot: Sendable, Hashable {
    /// `st_dev`.
    var device: UInt64
    /// `st_ino`.
    var inode: UInt64
    /// `st_size`.
    var size: Int64
    /// `st_mode` (type and permissions).
    var mode: UInt32
    /// `st_mtim` in nanoseconds.
    var modified: Int64
    /// `st_ctim` in nanoseconds.
    var changed: Int64

    /// The change between two observations of one path, or nil if they look the same. A different inode,
    /// size or modification time counts as a contents change (a `touch` does too: polling cannot tell).
    static func change(from old: FileSnapshot?, to new: FileSnapshot?) -> WatchedChange.Kind? {
        switch (old, new) {
        case (nil, nil):
            return nil
        case (.some, nil):
            return .deleted
        case (nil, .some):
            return .contentsChanged
        case (.some(let old), .some(let new)):
            if old.device != new.device || old.inode != new.inode || old.size != new.size
                || old.modified != new.modified
            {
                return .contentsChanged
            }
            return old.mode != new.mode || old.changed != new.changed ? .metadataChanged : nil
        }
    }
}
