#if canImport(Glibc)
import QuireSystem
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FileCoordination
import Foundation

/// Reading, replacing, moving and removing files in coordination with every other coordinator and presenter:
/// the work behind `quire read`, `write`, `mv` and `rm`. Errors are ``SystemCallError``s (the call, the path,
/// `errno`; an ``OutputCreationError`` when the call was making the output), `FileCoordinationError`s, or a presenter's own error.
public enum CoordinatedFileOperations {
    /// Copies the file at `path` to the descriptor `output` inside a coordinated read (presenters elsewhere save
    /// their changes first). A closed pipe on `output` ends the copy quietly.
    public static func read(_ path: String, to output: Int32) throws {
        let url = URL(fileURLWithPath: path)
        try FileCoordinator().coordinate(readingItemAt: url) { url in
            let input = try SystemCall.retryingOnInterrupt("open", path: url.path) {
                open(url.path, O_RDONLY | O_CLOEXEC)
            }
            defer { SystemCall.close(input) }
            var info = stat()
            try SystemCall.retryingOnInterrupt("fstat", path: url.path) { fstat(input, &info) }
            if info.st_mode & S_IFMT == S_IFDIR { throw SystemCallError(call: "read", errno: EISDIR, path: url.path) }
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
        let input = try SystemCall.retryingOnInterrupt("open", path: source) { open(source, O_RDONLY | O_CLOEXEC) }
        defer { SystemCall.close(input) }
        try replaceContents(of: path, from: input, named: source)
    }

    /// As ``replaceContents(of:withContentsOf:)``, reading the new bytes from the descriptor `input`.
    public static func replaceContents(of path: String, from input: Int32, named inputName: String) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let (temporary, temporaryPath) = try creatingOutput { () throws(SystemCallError) in
            try SystemCall.makeTemporaryFile(template: "\(directory)/.\(url.lastPathComponent).quire-XXXXXX")
        }
        var renamed = false
        defer {
            SystemCall.close(temporary)
            if !renamed { unlink(temporaryPath) }
        }
        try FileDescriptorCopy.copy(from: input, named: inputName, to: temporary, named: temporaryPath)
        try SystemCall.retryingOnInterrupt("fchmod", path: temporaryPath) {
            fchmod(temporary, permissions(for: url.path))
        }
        try SystemCall.retryingOnInterrupt("fsync", path: temporaryPath) { fsync(temporary) }
        try FileCoordinator().coordinate(writingItemAt: url) { url in
            try creatingOutput { () throws(SystemCallError) in
                try SystemCall.retryingOnInterrupt("rename", path: url.path) { rename(temporaryPath, url.path) }
            }
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
        try SystemCall.retryingOnInterrupt("lstat", path: source) { lstat(source, &info) }
        var target = URL(fileURLWithPath: destination)
        if stat(destination, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            target.appendPathComponent(URL(fileURLWithPath: source).lastPathComponent)
        }
        let coordinator = FileCoordinator()
        try coordinator.coordinate(
            writingItemAt: URL(fileURLWithPath: source), options: .forMoving,
            writingItemAt: target, options: .forReplacing
        ) { from, to in
            try creatingOutput { () throws(SystemCallError) in
                try SystemCall.retryingOnInterrupt("rename", path: to.path) { rename(from.path, to.path) }
            }
            coordinator.item(at: from, didMoveTo: to)
        }
        return target.path
    }

    /// Removes the item at `path` inside a coordinated `.forDeleting` write (presenters accommodate the deletion
    /// first). A directory is removed, with everything in it, only if `recursive`; otherwise the call throws
    /// `EISDIR` without coordinating.
    public static func remove(_ path: String, recursive: Bool) throws {
        var info = stat()
        try SystemCall.retryingOnInterrupt("lstat", path: path) { lstat(path, &info) }
        if info.st_mode & S_IFMT == S_IFDIR && !recursive {
            throw SystemCallError(call: "unlink", errno: EISDIR, path: path)
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
        let descriptor = try SystemCall.retryingOnInterrupt("open", path: directory) {
            open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        defer { SystemCall.close(descriptor) }
        try SystemCall.retryingOnInterrupt("fsync", path: directory) { fsync(descriptor) }
    }
}
