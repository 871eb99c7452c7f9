#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FileCoordination
import Foundation

/// Reading, replacing, moving and removing files in coordination with every other coordinator and presenter:
/// the work behind `quire read`, `write`, `mv` and `rm`. Errors are ``SystemCallError``s (the call, the path,
/// `errno`), `FileCoordinationError`s, or a presenter's own error.
public enum CoordinatedFileOperations {
    /// Copies the file at `path` to the descriptor `output` inside a coordinated read (presenters elsewhere save
    /// their changes first). A closed pipe on `output` ends the copy quietly.
    public static func read(_ path: String, to output: Int32) throws {
        let url = URL(fileURLWithPath: path)
        try FileCoordinator().coordinate(readingItemAt: url) { url in
            let input = try systemCall("open", path: url.path) { open(url.path, O_RDONLY | O_CLOEXEC) }
            defer { close(input) }
            var info = stat()
            try systemCall("fstat", path: url.path) { fstat(input, &info) }
            if info.st_mode & S_IFMT == S_IFDIR { throw SystemCallError("read", path: url.path, errno: EISDIR) }
            try FileDescriptorCopy.copy(from: input, named: url.path, to: output, named: "standard output")
        }
    }

    /// Replaces the contents of the file at `path` atomically with everything read from `input`: the bytes go
    /// to a temporary file in the same directory first (synced to disk), which then, inside a coordinated write,
    /// is renamed over `path`; the directory is synced after. The new file keeps the old one's permission bits
    /// (a new file gets 0666 minus the umask). Nothing is left behind on failure.
    /// - Parameter source: the file the new bytes come from; nil reads standard input.
    public static func replaceContents(of path: String, withContentsOf source: String?) throws {
        guard let source else { return try replaceContents(of: path, from: 0, named: "standard input") }
        let input = try systemCall("open", path: source) { open(source, O_RDONLY | O_CLOEXEC) }
        defer { close(input) }
        try replaceContents(of: path, from: input, named: source)
    }

    /// As ``replaceContents(of:withContentsOf:)``, reading the new bytes from the descriptor `input`.
    public static func replaceContents(of path: String, from input: Int32, named inputName: String) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var template = Array("\(directory)/.\(url.lastPathComponent).quire-XXXXXX".utf8CString)
        let temporary = try template.withUnsafeMutableBufferPointer { buffer throws(SystemCallError) in
            try systemCall("mkstemp", path: directory, creating: true) { mkstemp(buffer.baseAddress!) }
        }
        let temporaryPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            close(temporary)
            if !renamed { unlink(temporaryPath) }
        }
        try FileDescriptorCopy.copy(from: input, named: inputName, to: temporary, named: temporaryPath)
        try systemCall("fchmod", path: temporaryPath) { fchmod(temporary, permissions(for: url.path)) }
        try systemCall("fsync", path: temporaryPath) { fsync(temporary) }
        try FileCoordinator().coordinate(writingItemAt: url) { url in
            try systemCall("rename", path: url.path, creating: true) { rename(temporaryPath, url.path) }
            renamed = true
            try syncDirectory(url.deletingLastPathComponent().path)
        }
    }

    /// Moves (renames) `source` to `destination` in one coordinated access: the source `.forMoving`, the
    /// destination `.forReplacing`; presenters of the source follow it. If `destination` is a directory, the
    /// item moves into it under its own name, as `mv(1)`. Both must be on one file system.
    /// - Returns: the path the item now has.
    @discardableResult
    public static func move(_ source: String, to destination: String) throws -> String {
        var info = stat()
        try systemCall("lstat", path: source) { lstat(source, &info) }
        var target = URL(fileURLWithPath: destination)
        if stat(destination, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            target.appendPathComponent(URL(fileURLWithPath: source).lastPathComponent)
        }
        let coordinator = FileCoordinator()
        try coordinator.coordinate(
            writingItemAt: URL(fileURLWithPath: source), options: .forMoving,
            writingItemAt: target, options: .forReplacing
        ) { from, to in
            try systemCall("rename", path: to.path, creating: true) { rename(from.path, to.path) }
            coordinator.item(at: from, didMoveTo: to)
        }
        return target.path
    }

    /// Removes the item at `path` inside a coordinated `.forDeleting` write (presenters accommodate the deletion
    /// first). A directory is removed, with everything in it, only if `recursive`; otherwise the call throws
    /// `EISDIR` without coordinating.
    public static func remove(_ path: String, recursive: Bool) throws {
        var info = stat()
        try systemCall("lstat", path: path) { lstat(path, &info) }
        if info.st_mode & S_IFMT == S_IFDIR && !recursive {
            throw SystemCallError("unlink", path: path, errno: EISDIR)
        }
        try FileCoordinator().coordinate(writingItemAt: URL(fileURLWithPath: path), options: .forDeleting) {
            url in
            try DirectoryTree.remove(url.path)
        }
    }

    /// The permission bits a replacement of `path` gets: the existing file's, or 0666 minus the umask.
    private static func permissions(for path: String) -> mode_t {
        var info = stat()
        if stat(path, &info) == 0 { return info.st_mode & 0o7777 }
        let mask = umask(0o022)
        umask(mask)
        return 0o666 & ~mask
    }

    /// Makes a rename in `directory` durable.
    private static func syncDirectory(_ directory: String) throws(SystemCallError) {
        let descriptor = try systemCall("open", path: directory) { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(descriptor) }
        try systemCall("fsync", path: directory) { fsync(descriptor) }
    }
}
