import CQuireLinux
import Foundation
import QuireSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A directory that files must stay beneath: every open of a confined provider's file resolves its path from a
/// descriptor of this directory, following no symbolic link and no `..` out of it, and accepts only a regular
/// file with a single link. The bytes read are those of the descriptor that was checked.
///
/// - Opening uses `openat2(2)` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS` (Linux 5.6
///   and later); where the kernel has no `openat2` it walks the path one component at a time with
///   `O_NOFOLLOW`, which refuses the same things.
/// - A FIFO, a device, a socket or a directory is refused before a byte is read (FIFOs are opened
///   non-blocking, so a FIFO never stalls the reader).
/// - A file with more than one hard link is refused: another link may sit outside the directory (say, a link
///   to a secret made by someone who can write under it), and nothing can tell where the others are.
///
/// The root itself is opened once, when the confinement is made, so that replacing the root's path later
/// (by a symbolic link, say) changes nothing for the files beneath it.
public final class FileConfinement: Sendable {
    /// The directory, with symbolic links resolved (as `realpath(3)` gives it).
    public let root: URL
    private let rootPath: String
    /// The root's path as given, when it differs from ``root`` (a path through a symbolic link): paths written
    /// either way name the same files.
    private let givenPath: String?
    private let descriptor: Int32
    private let resolver: Resolver

    /// How paths are resolved beneath the root.
    enum Resolver: Sendable {
        /// openat2 where the kernel has it, else the component walk.
        case automatic
        /// Always the component walk (what kernels before 5.6 get; tests use it to check the fallback).
        case walk
    }

    /// Opens `root` (resolving symbolic links in its path once, now) as the directory to stay beneath.
    /// - Throws: ``DataProviderError/io(path:call:errno:)`` when it does not exist or cannot be opened, and
    ///   ``DataProviderError/notRegularFile(path:kind:)`` when it is not a directory.
    public convenience init(root: URL) throws(DataProviderError) {
        try self.init(root: root, resolver: .automatic)
    }

    /// Opens `root` as the directory to stay beneath, resolving paths with `resolver`.
    init(root: URL, resolver: Resolver) throws(DataProviderError) {
        self.resolver = resolver
        let given = root.standardizedFileURL.path
        guard let resolved = realpath(given, nil) else { throw .io(path: given, call: "realpath", errno: errno) }
        let path = String(cString: resolved)
        free(resolved)
        let descriptor = try FileSystemCalls.call("open", path: path) {
            open(path, CQuire_O_PATH | CQuire_O_DIRECTORY | O_CLOEXEC)
        }
        self.descriptor = descriptor
        rootPath = path == "/" ? "" : path
        givenPath = given == path || given == "/" ? nil : given
        self.root = URL(fileURLWithPath: path, isDirectory: true)
    }

    deinit {
        SystemCall.close(descriptor)
    }

    /// Whether `path` (absolute, as written: no symbolic link is resolved) names something beneath the root.
    public func contains(_ path: String) -> Bool {
        relativePath(of: path) != nil
    }

    /// `path` relative to the root, or nil when it is not beneath it (or is the root, or has `.`/`..` or empty
    /// components).
    func relativePath(of path: String) -> String? {
        guard let prefix = [rootPath, givenPath].compactMap({ $0 }).first(where: { path.hasPrefix($0 + "/") })
        else { return nil }
        let relative = String(path.dropFirst(prefix.count + 1))
        let components = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.isEmpty,
            !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else { return nil }
        return relative
    }

    // MARK: opening

    /// Opens the file at `path` for reading: beneath the root, no symbolic link on the way, a regular file with
    /// one link.
    /// - Throws: ``DataProviderError/outsideConfinement(path:root:)``,
    ///   ``DataProviderError/notRegularFile(path:kind:)``, ``DataProviderError/multipleLinks(path:count:)``, or
    ///   ``DataProviderError/io(path:call:errno:)`` (ENOENT when missing, ELOOP or EXDEV when a symbolic link
    ///   or `..` would lead out).
    func openForReading(_ path: String) throws(DataProviderError) -> Int32 {
        guard let relative = relativePath(of: path) else { throw .outsideConfinement(path: path, root: rootPath) }
        let descriptor = try openBeneath(relative, path: path, flags: O_RDONLY | O_NONBLOCK | CQuire_O_NOCTTY)
        do {
            try Self.checkRegularFile(descriptor, path: path)
        } catch {
            SystemCall.close(descriptor)
            throw error
        }
        return descriptor
    }

    /// The status of the file at `path` (checked as ``openForReading(_:)`` checks it), or nil when it does not
    /// exist.
    /// - Throws: as ``openForReading(_:)``, except for a missing file.
    func status(_ path: String) throws(DataProviderError) -> stat? {
        let descriptor: Int32
        do {
            descriptor = try openForReading(path)
        } catch  where error.isFileMissing {
            return nil
        }
        defer { SystemCall.close(descriptor) }
        var info = stat()
        try FileSystemCalls.call("fstat", path: path) { fstat(descriptor, &info) }
        return info
    }

    /// Opens the directory that holds `path` (beneath the root, or the root itself) and returns its descriptor
    /// and the file's name in it: creating, renaming and removing the file happen relative to that descriptor.
    /// - Throws: ``DataProviderError/outsideConfinement(path:root:)`` or the error of opening the directory.
    func openParent(of path: String) throws(DataProviderError) -> (descriptor: Int32, name: String) {
        guard let relative = relativePath(of: path) else { throw .outsideConfinement(path: path, root: rootPath) }
        guard let slash = relative.lastIndex(of: "/") else {
            let copy = try FileSystemCalls.call("openat", path: rootPath) {
                openat(descriptor, ".", O_RDONLY | CQuire_O_DIRECTORY | O_CLOEXEC)
            }
            return (copy, relative)
        }
        let directory = String(relative[..<slash])
        let parent = try openBeneath(directory, path: path, flags: O_RDONLY | CQuire_O_DIRECTORY)
        return (parent, String(relative[relative.index(after: slash)...]))
    }

    /// Opens `relative` beneath the root with `flags` (plus close-on-exec): openat2, or the component walk.
    private func openBeneath(_ relative: String, path: String, flags: Int32) throws(DataProviderError) -> Int32 {
        if resolver == .walk { return try walk(relative, path: path, flags: flags) }
        let resolve = UInt64(CQUIRE_RESOLVE_BENEATH | CQUIRE_RESOLVE_NO_SYMLINKS | CQUIRE_RESOLVE_NO_MAGICLINKS)
        while true {
            let number: Int32
            do throws(SystemCallError) {
                return try SystemCall.retryingOnInterrupt("openat2", path: path) {
                    CQuire_openat2(descriptor, relative, flags | O_CLOEXEC, 0, resolve)
                }
            } catch {
                number = error.errno
            }
            switch number {
            case EAGAIN: continue  // a rename raced the lookup; the kernel asks to try again
            case ELOOP, EXDEV: throw .outsideConfinement(path: path, root: rootPath)
            case ENOSYS, EPERM:
                guard Self.openat2Unavailable else { throw .io(path: path, call: "openat2", errno: number) }
                return try walk(relative, path: path, flags: flags)
            default: throw .io(path: path, call: "openat2", errno: number)
            }
        }
    }

    /// Whether this kernel lacks openat2 (seccomp filters may answer EPERM or ENOSYS): probed once.
    private static let openat2Unavailable: Bool = {
        let probe = CQuire_openat2(AT_FDCWD, "/", O_RDONLY | CQuire_O_DIRECTORY | O_CLOEXEC, 0, 0)
        if probe >= 0 {
            SystemCall.close(probe)
            return false
        }
        return errno == ENOSYS || errno == EPERM
    }()

    /// The fallback for kernels without openat2: each directory opened with `O_NOFOLLOW | O_DIRECTORY` from the
    /// one before, the last component with `O_NOFOLLOW`.
    private func walk(_ relative: String, path: String, flags: Int32) throws(DataProviderError) -> Int32 {
        var current = try FileSystemCalls.call("openat", path: rootPath) {
            openat(descriptor, ".", CQuire_O_PATH | CQuire_O_DIRECTORY | O_CLOEXEC)
        }
        let components = relative.split(separator: "/").map(String.init)
        for (index, component) in components.enumerated() {
            let isLast = index == components.count - 1
            let componentFlags =
                (isLast ? flags : CQuire_O_PATH | CQuire_O_DIRECTORY) | CQuire_O_NOFOLLOW | O_CLOEXEC
            let parent = current
            defer { SystemCall.close(parent) }
            do {
                current = try FileSystemCalls.call("openat", path: path) { openat(parent, component, componentFlags) }
            } catch let error where error.errno == ELOOP || (error.errno == ENOTDIR && !isLast) {
                throw .outsideConfinement(path: path, root: rootPath)
            }
        }
        return current
    }

    /// Refuses anything but a regular file with a single link.
    static func checkRegularFile(_ descriptor: Int32, path: String) throws(DataProviderError) {
        var info = stat()
        try FileSystemCalls.call("fstat", path: path) { fstat(descriptor, &info) }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else { throw .notRegularFile(path: path, kind: FileSystemCalls.kindName(kind)) }
        guard info.st_nlink == 1 else { throw .multipleLinks(path: path, count: Int(info.st_nlink)) }
    }
}
