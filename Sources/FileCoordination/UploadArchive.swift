import QuireSystem
import Foundation
import ZIPFoundation

#if canImport(Glibc)
import Glibc
#endif

/// The zip archive of a directory, for a `.forUploading` snapshot: `<name>/` and everything under it (as
/// Finder's "Compress", and ZIPFoundation's `zipItem` with `shouldKeepParent`), files deflated.
///
/// ZIPFoundation's `FileManager.zipItem(at:to:)` is not used: it opens every entry that is not a directory or
/// a link with `fopen`, so a FIFO in the tree blocks it forever, and it enumerates by path, so a directory swapped
/// for a symbolic link while it works is followed out of the tree. Here the tree is walked through descriptors
/// (`openat` with `O_NOFOLLOW`, files opened with `O_NONBLOCK` and checked with `fstat` before they are read) and
/// ZIPFoundation writes the entries from them. Symbolic links are stored as links, never followed; FIFOs, sockets
/// and devices are left out (they hold nothing to upload).
enum UploadArchive {
    /// Writes the archive of the open directory `descriptor` (named `name`, at `path`) to `destination`.
    /// - Throws: ``SnapshotError`` naming the file that could not be read, or ZIPFoundation's error when the
    ///   archive could not be written (no space, say).
    static func write(directory descriptor: Int32, named name: String, at path: String, to destination: String) throws {
        let url = URL(fileURLWithPath: destination)
        do {
            let archive = try Archive(url: url, accessMode: .create)
            try addDirectory(descriptor, at: path, entry: name + "/", to: archive)
        }
        // ZIPFoundation ignores a failure of the final `fflush` (a full disk, say): reading the archive back
        // proves that its end of central directory reached the file.
        do {
            _ = try Archive(url: url, accessMode: .read, pathEncoding: nil)
        } catch {
            throw SnapshotError(path: destination, reason: "could not be written completely (is the disk full?)")
        }
    }

    /// Adds the entry of a directory and, recursively, of its contents. `descriptor` stays the caller's.
    private static func addDirectory(_ descriptor: Int32, at path: String, entry: String, to archive: Archive) throws {
        let info = try SnapshotFile.status(of: descriptor, path: path)
        try archive.addEntry(
            with: entry, type: .directory, uncompressedSize: Int64(0), modificationDate: modificationDate(info),
            permissions: permissions(info), provider: { _, _ in Data() })
        let duplicate = try SnapshotFile.retrying("fcntl", path: path) { fcntl(descriptor, F_DUPFD_CLOEXEC, 0) }
        guard let stream = fdopendir(duplicate) else {
            let code = errno
            SystemCall.close(duplicate)
            throw SnapshotError(path: path, call: "fdopendir", errno: code)
        }
        defer { closedir(stream) }
        for name in try names(in: stream, at: path) {
            try addItem(named: name, in: dirfd(stream), at: path + "/" + name, entry: entry + name, to: archive)
        }
    }

    /// Adds one item of a directory by what it is now (not following a symbolic link).
    private static func addItem(
        named name: String, in directory: Int32, at path: String, entry: String, to archive: Archive
    ) throws {
        var info = stat()
        _ = try SnapshotFile.retrying("fstatat", path: path) {
            fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW)
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            let child = try SnapshotFile.retrying("openat", path: path) {
                openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            defer { SystemCall.close(child) }
            try addDirectory(child, at: path, entry: entry + "/", to: archive)
        case S_IFLNK:
            let target = try linkTarget(named: name, in: directory, at: path)
            try archive.addEntry(
                with: entry, type: .symlink, uncompressedSize: Int64(target.count),
                modificationDate: modificationDate(info), permissions: permissions(info),
                provider: { _, _ in target })
        case S_IFREG:
            let file = try SnapshotFile.retrying("openat", path: path) {
                openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            }
            defer { SystemCall.close(file) }
            let opened = try SnapshotFile.status(of: file, path: path)
            // Replaced by something else since `fstatat` (only an uncoordinated change can do that): what it is
            // now decides, and a FIFO or device is left out as below.
            guard opened.st_mode & S_IFMT == S_IFREG else { return }
            try archive.addEntry(
                with: entry, type: .file, uncompressedSize: Int64(opened.st_size),
                modificationDate: modificationDate(opened), permissions: permissions(opened),
                compressionMethod: .deflate, bufferSize: SnapshotFile.chunkSize,
                provider: { position, size in try SnapshotFile.read(file, count: size, at: position, path: path) })
        default:
            return  // A FIFO, socket or device: nothing to upload, and opening a FIFO to read it could block.
        }
    }

    /// The names in a directory stream, sorted, without `.` and `..`.
    /// - Throws: ``SnapshotError`` if the directory cannot be read or a name is not UTF-8 (zip entry names are).
    private static func names(in stream: OpaquePointer, at path: String) throws(SnapshotError) -> [String] {
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SnapshotError(path: path, call: "readdir", errno: errno) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(validatingCString: bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            guard let name else {
                throw SnapshotError(path: path, reason: "holds a name that is not UTF-8, which a zip entry cannot carry")
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The bytes a symbolic link holds.
    private static func linkTarget(named name: String, in directory: Int32, at path: String) throws(SnapshotError) -> Data {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try SnapshotFile.retrying("readlinkat", path: path) {
            readlinkat(directory, name, &buffer, buffer.count - 1)
        }
        return buffer.withUnsafeBytes { Data($0.prefix(count)) }
    }

    private static func modificationDate(_ info: stat) -> Date {
        Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1_000_000_000)
    }

    private static func permissions(_ info: stat) -> UInt16 {
        UInt16(info.st_mode & 0o777)
    }
}
