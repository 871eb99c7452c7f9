import QuireSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The watcher's use of the operating system: inotify, `poll`, the wake-up pipe and `stat`, each through the
/// package's one system-call layer (``SystemCall``: `EINTR` retried, `close` never; a failure is a
/// ``SystemCallError`` naming the call and the path).
enum Inotify {
    /// The events every directory watch asks for. `IN_ONLYDIR` refuses a path that is not a directory;
    /// `IN_EXCL_UNLINK` drops events on children that were unlinked but are still open.
    static let directoryMask: InotifyEventMask = [
        .modify, .attributes, .closeWrite, .create, .delete, .movedFrom, .movedTo, .deleteSelf, .moveSelf,
        .onlyDirectory, .excludeUnlinked,
    ]

    /// Creates an inotify instance with `IN_NONBLOCK | IN_CLOEXEC`.
    static func initialize() throws(SystemCallError) -> Int32 {
        try SystemCall.retryingOnInterrupt("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
    }

    /// Watches `directory` with ``directoryMask``; returns the watch descriptor (the same one for a directory
    /// that is already watched by this instance).
    static func addWatch(_ descriptor: Int32, directory: String) throws(SystemCallError) -> Int32 {
        try SystemCall.retryingOnInterrupt("inotify_add_watch", path: directory) {
            inotify_add_watch(descriptor, directory, directoryMask.rawValue)
        }
    }

    /// Removes a watch. `EINVAL` (the kernel already dropped it) is expected and ignored.
    static func removeWatch(_ descriptor: Int32, _ watch: Int32) {
        _ = try? SystemCall.retryingOnInterrupt("inotify_rm_watch") { inotify_rm_watch(descriptor, watch) }
    }

    /// Reads what is queued on a non-blocking descriptor into `buffer`; nil when nothing is queued (`EAGAIN`).
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int? {
        do throws(SystemCallError) {
            return try SystemCall.retryingOnInterrupt("read") { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
        } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
            return nil
        }
    }

    /// Waits until one of `descriptors` is readable or `timeout` milliseconds pass (-1: no limit).
    /// An interrupted wait returns at once, so the caller recomputes its deadline instead of waiting again.
    static func poll(_ descriptors: inout [pollfd], timeout: Int32) throws(SystemCallError) {
        try SocketSystem.poll(&descriptors, timeout: timeout)
    }

    /// A pipe to wake the reader thread: non-blocking, and close-on-exec from its creation (`pipe2`), so no
    /// child started meanwhile inherits it; nothing stays open when it fails.
    static func makeWakePipe() throws(SystemCallError) -> (read: Int32, write: Int32) {
        try SystemCall.makePipe(.nonBlocking)
    }

    /// Writes one byte to the wake-up pipe; a full pipe already holds a wake-up, so `EAGAIN` is ignored.
    static func wake(_ descriptor: Int32) {
        var byte: UInt8 = 1
        _ = try? SystemCall.retryingOnInterrupt("write") { Glibc.write(descriptor, &byte, 1) }
    }

    /// Empties the wake-up pipe.
    static func drain(_ descriptor: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while let count = try? SystemCall.retryingOnInterrupt("read", { Glibc.read(descriptor, &bytes, bytes.count) }),
            count > 0
        {}
    }

    /// What `lstat` sees at `path` (a symbolic link itself, not its target), nil when nothing is there.
    static func snapshot(ofEntry path: String) -> FileSnapshot? {
        var info = stat()
        guard (try? SystemCall.retryingOnInterrupt("lstat", path: path, { lstat(path, &info) })) != nil else {
            return nil
        }
        return FileSnapshot(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            mode: UInt32(info.st_mode),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
    }

    /// What `stat(2)` says about `path` now, or nil if it cannot be stat'ed (missing, no permission).
    static func snapshot(of path: String) -> FileSnapshot? {
        var info = stat()
        guard (try? SystemCall.retryingOnInterrupt("stat", path: path, { stat(path, &info) })) != nil else { return nil }
        return FileSnapshot(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            mode: UInt32(info.st_mode),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
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
