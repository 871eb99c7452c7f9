#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import QuireSystem

/// The file operations of the `Documents` modules, each through the package's one system-call layer
/// (``SystemCall``: `EINTR` retried, `close` never), its failures mapped to
/// ``DataProviderError/io(path:call:errno:)``.
enum FileSystemCalls {
    /// Runs `body` through ``SystemCall/retryingOnInterrupt(_:path:_:)``; -1 becomes
    /// ``DataProviderError/io(path:call:errno:)``.
    @discardableResult
    static func call<T: FixedWidthInteger>(
        _ name: String, path: String, _ body: () -> T
    ) throws(DataProviderError) -> T {
        do {
            return try SystemCall.retryingOnInterrupt(name, path: path, body)
        } catch {
            throw .io(path: path, call: name, errno: error.errno)
        }
    }

    /// Opens `path` for reading: through `confinement` when there is one (beneath its root, no symbolic link,
    /// one link), else directly. Either way only a regular file is accepted, and it is opened non-blocking
    /// first, so that a FIFO put in its place never stalls the reader.
    static func openForReading(_ path: String, confinement: FileConfinement? = nil) throws(DataProviderError)
        -> Int32
    {
        if let confinement { return try confinement.openForReading(path) }
        let descriptor = try call("open", path: path) { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        var info = stat()
        do {
            try call("fstat", path: path) { fstat(descriptor, &info) }
        } catch {
            SystemCall.close(descriptor)
            throw error
        }
        let kind = info.st_mode & S_IFMT
        if kind != S_IFREG {
            SystemCall.close(descriptor)
            if kind == S_IFDIR { throw .isDirectory(path: path) }
            throw .notRegularFile(path: path, kind: kindName(kind))
        }
        return descriptor
    }

    /// A file type's name for messages.
    static func kindName(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: return "directory"
        case S_IFIFO: return "FIFO"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        case S_IFSOCK: return "socket"
        case S_IFLNK: return "symbolic link"
        default: return "special file"
        }
    }

    /// The size of the open file.
    static func size(of descriptor: Int32, path: String) throws(DataProviderError) -> UInt64 {
        var info = stat()
        try call("fstat", path: path) { fstat(descriptor, &info) }
        return UInt64(info.st_size)
    }

    /// The file's status, or nil if it does not exist; through `confinement` when there is one (then only a
    /// regular file beneath its root counts).
    static func status(_ path: String, confinement: FileConfinement? = nil) throws(DataProviderError) -> stat? {
        if let confinement { return try confinement.status(path) }
        var info = stat()
        do throws(DataProviderError) {
            try call("stat", path: path) { stat(path, &info) }
        } catch .io(_, _, let number) where number == ENOENT || number == ENOTDIR {
            return nil
        }
        return info
    }

    /// Reads the whole file. `opened`, if given, is called with the descriptor and its status (taken before the
    /// first byte is read) while the descriptor is open.
    static func readFile(
        _ path: String, confinement: FileConfinement? = nil, opened: ((Int32, stat) -> Void)? = nil
    ) throws(DataProviderError) -> Data {
        let descriptor = try openForReading(path, confinement: confinement)
        defer { SystemCall.close(descriptor) }
        var info = stat()
        try call("fstat", path: path) { fstat(descriptor, &info) }
        opened?(descriptor, info)
        // One byte more than the size, so that the read that finds the end needs no larger buffer; the file may
        // still grow or shrink while it is read (an uncoordinated writer): read until end of file.
        var data = Data(count: Int(info.st_size) + 1)
        var filled = 0
        while true {
            if filled == data.count { data.count += max(65_536, data.count / 2) }
            let count = try call("read", path: path) {
                data.withUnsafeMutableBytes { buffer in
                    read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
                }
            }
            if count == 0 { break }
            filled += count
        }
        data.count = filled
        return data
    }

    /// The fingerprint of a file's content, read through one descriptor in pieces (no copy of the whole file).
    /// `opened` as for ``readFile(_:confinement:opened:)``.
    static func fingerprintOfFile(
        _ path: String, confinement: FileConfinement? = nil, opened: ((Int32, stat) -> Void)? = nil
    ) throws(DataProviderError) -> ContentFingerprint {
        let descriptor = try openForReading(path, confinement: confinement)
        defer { SystemCall.close(descriptor) }
        if let opened {
            var info = stat()
            try call("fstat", path: path) { fstat(descriptor, &info) }
            opened(descriptor, info)
        }
        var hasher = ContentFingerprint.Hasher64(checkingFile: true)
        try readPieces(descriptor, path: path) { hasher.update($0) }
        return hasher.finish()
    }

    /// Reads an open file to its end in pieces of 256 KiB, handing each to `body` (no copy of the whole file).
    static func readPieces(_ descriptor: Int32, path: String, _ body: (UnsafeRawBufferPointer) -> Void)
        throws(DataProviderError)
    {
        let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { piece.deallocate() }
        while true {
            let count = try call("read", path: path) { read(descriptor, piece.baseAddress!, piece.count) }
            if count == 0 { return }
            body(UnsafeRawBufferPointer(rebasing: piece[0..<count]))
        }
    }

    /// What opening `path` for reading finds now (as every read opens it: through `confinement`, a regular file,
    /// with one link when confined), without reading a byte: the file's identity and times, or why it cannot be
    /// read. `opened`, if given, is called with the descriptor and its status while it is open.
    static func identity(
        _ path: String, confinement: FileConfinement? = nil, opened: ((Int32, stat) -> Void)? = nil
    ) -> FileIdentity {
        let descriptor: Int32
        do {
            descriptor = try openForReading(path, confinement: confinement)
        } catch {
            return FileIdentity(failure: error)
        }
        defer { SystemCall.close(descriptor) }
        var info = stat()
        do {
            try call("fstat", path: path) { fstat(descriptor, &info) }
        } catch {
            return FileIdentity(failure: error)
        }
        opened?(descriptor, info)
        return FileIdentity(info)
    }

    /// Reads at most `size` bytes at `offset` (fewer at end of file).
    static func readChunk(_ path: String, size: Int, offset: UInt64, confinement: FileConfinement? = nil)
        throws(DataProviderError) -> Data
    {
        guard size > 0 else { return Data() }
        let descriptor = try openForReading(path, confinement: confinement)
        defer { SystemCall.close(descriptor) }
        var data = Data(count: size)
        var filled = 0
        while filled < size {
            let count = try call("pread", path: path) {
                data.withUnsafeMutableBytes { buffer in
                    pread(descriptor, buffer.baseAddress! + filled, size - filled, off_t(offset) + off_t(filled))
                }
            }
            if count == 0 { break }
            filled += count
        }
        data.count = filled
        return data
    }

    /// Writes all of `bytes` to the descriptor.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(DataProviderError) {
        var written = 0
        while written < bytes.count {
            written += try call("write", path: path) {
                write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            }
        }
    }

    /// Creates a new, empty temporary file next to `url`, hidden and with the same extension:
    /// `.NAME.quire-XXXXXX.EXT`; in a directory opened through `confinement` when there is one. Returns its
    /// descriptor and path.
    static func makeTemporaryFile(beside url: URL, confinement: FileConfinement? = nil) throws(DataProviderError)
        -> (descriptor: Int32, path: String)
    {
        let directory = url.deletingLastPathComponent().path
        let pathExtension = url.pathExtension
        let suffix = pathExtension.isEmpty ? "" : "." + pathExtension
        let stem = ".\(url.deletingPathExtension().lastPathComponent).quire-"
        if let confinement {
            let (parent, _) = try confinement.openParent(of: url.path)
            defer { SystemCall.close(parent) }
            let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            while true {
                let name = stem + String((0..<6).map { _ in letters.randomElement()! }) + suffix
                do throws(DataProviderError) {
                    let descriptor = try call("openat", path: directory) {
                        openat(parent, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                    }
                    return (descriptor, directory + "/" + name)
                } catch .io(_, _, let number) where number == EEXIST {
                    continue
                }
            }
        }
        do throws(SystemCallError) {
            return try SystemCall.makeTemporaryFile(
                template: "\(directory)/\(stem)XXXXXX\(suffix)", suffixLength: suffix.utf8.count)
        } catch {
            throw .io(path: directory, call: error.call, errno: error.errno)
        }
    }

    /// Gives the file the permission bits of `model` if it exists, else 0666 minus the umask.
    static func copyPermissions(
        to descriptor: Int32, path: String, from model: String, confinement: FileConfinement? = nil
    ) throws(DataProviderError) {
        let mode: mode_t
        if let info = try? status(model, confinement: confinement) ?? nil {
            mode = info.st_mode & 0o7777
        } else {
            let mask = umask(0o022)
            umask(mask)
            mode = 0o666 & ~mask
        }
        try call("fchmod", path: path) { fchmod(descriptor, mode) }
    }

    /// Flushes the file to disk.
    static func sync(_ descriptor: Int32, path: String) throws(DataProviderError) {
        try call("fsync", path: path) { fsync(descriptor) }
    }

    /// Flushes a directory's entries to disk (after a rename into it).
    static func syncDirectory(_ path: String) throws(DataProviderError) {
        let descriptor = try call("open", path: path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { SystemCall.close(descriptor) }
        try call("fsync", path: path) { fsync(descriptor) }
    }

    /// Renames `source` over `destination` (atomically replacing it) and flushes the directory's entries to disk;
    /// the destination's directory opened through `confinement` when there is one.
    static func replace(_ destination: String, with source: String, confinement: FileConfinement? = nil)
        throws(DataProviderError)
    {
        guard let confinement else {
            try call("rename", path: destination) { Glibc.rename(source, destination) }
            try syncDirectory(URL(fileURLWithPath: destination).deletingLastPathComponent().path)
            return
        }
        let (parent, name) = try confinement.openParent(of: destination)
        defer { SystemCall.close(parent) }
        let sourceURL = URL(fileURLWithPath: source)
        if sourceURL.deletingLastPathComponent().path
            == URL(fileURLWithPath: destination).deletingLastPathComponent().path
        {
            let sourceName = sourceURL.lastPathComponent
            try call("renameat", path: destination) { renameat(parent, sourceName, parent, name) }
        } else {
            // An adopted sink's file (an upload streamed elsewhere by its owner): only the target is confined.
            try call("renameat", path: destination) { renameat(AT_FDCWD, source, parent, name) }
        }
        try call("fsync", path: destination) { fsync(parent) }
    }

    /// Removes a file; through a directory opened by `confinement` when there is one.
    static func unlink(_ path: String, confinement: FileConfinement? = nil) throws(DataProviderError) {
        guard let confinement else {
            try call("unlink", path: path) { Glibc.unlink(path) }
            return
        }
        let (parent, name) = try confinement.openParent(of: path)
        defer { SystemCall.close(parent) }
        try call("unlinkat", path: path) { unlinkat(parent, name, 0) }
    }

    /// Removes a file, ignoring every failure (for cleaning up temporary files).
    static func unlinkQuietly(_ path: String) {
        _ = Glibc.unlink(path)
    }

}
