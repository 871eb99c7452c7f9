#if canImport(Glibc)
    import Glibc
#endif

/// What opening a provider's file for reading found: which file it was (device, inode) with its size and times,
/// or why nothing could be read. Two looks at one path that give the same identity saw the same bytes, as far
/// as the file system can tell without reading them (`make` and `rsync` trust as much): a write changes the
/// modification and change times, a new hard link or its removal the change time, a rename over the path the
/// inode. (On a file system with coarse timestamps, a write of the same size in the same clock tick as the
/// look is not told apart; the inode watch, `InodeWatch`, still sees its close.)
public enum FileIdentity: Sendable, Equatable {
    /// A regular file that opened: `st_dev`, `st_ino`, `st_size`, and `st_mtim` and `st_ctim` in nanoseconds.
    case file(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64)
    /// Nothing at the path.
    case missing
    /// Something at the path that is not read: a symbolic link, a FIFO, a second hard link, an I/O error.
    case refused(DataProviderError)

    /// The identity of an open file from its `fstat`.
    init(_ info: stat) {
        self = .file(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
    }

    /// What a failed open or read says of the path.
    init(failure: DataProviderError) {
        self = failure.isFileMissing ? .missing : .refused(failure)
    }
}
