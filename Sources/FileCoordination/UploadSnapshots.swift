import QuireSystem
import CoordinationArbiter
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The temporary snapshots of one coordinated access that reads items `.forUploading`, as Apple makes them: a
/// copy of a file (same name), a zip archive of a directory (`<name>.zip`, see ``UploadArchive``), each in a
/// private directory (mode 0700) under `$TMPDIR` made for this access. They are made while the read claim is
/// held; the accessor gets their URLs, may move them away, and ``remove()`` deletes whatever is left after it.
struct UploadSnapshots: Sendable {
    /// The private directory that holds the snapshots.
    let directory: String
    /// The URLs for the accessor: a snapshot for each `.forUploading` read, the granted URL for every other target.
    let urls: [URL]
    /// True when every target reads for uploading: the claim can end as soon as the snapshots exist (Apple).
    /// With a write (or another read) in the same access, the claim lasts until the accessor returns.
    let endsClaimEarly: Bool

    /// Makes the snapshots of the `.forUploading` reads among `targets`, granted at `urls`; nil if there are none.
    /// Call it while the claim is held, on a thread that may block (it copies and compresses files).
    /// - Throws: ``FileCoordinationError/snapshotFailed(_:_:)`` naming the item and the cause; nothing is left
    ///   behind.
    static func makeIfNeeded(
        of targets: [FileCoordinator.Target], at urls: [URL]
    ) throws(FileCoordinationError) -> UploadSnapshots? {
        let uploads = targets.indices.filter { targets[$0].readsForUploading }
        guard let first = uploads.first else { return nil }
        let directory: String
        do {
            directory = try makePrivateDirectory()
        } catch {
            throw .snapshotFailed(urls[first], error)
        }
        var snapshotURLs = urls
        for index in uploads {
            let source = sourcePath(of: targets[index], grantedAt: urls[index])
            do {
                var parent = directory
                if uploads.count > 1 {
                    parent += "/\(index)"
                    _ = try SnapshotFile.retrying("mkdir", path: parent) { mkdir(parent, 0o700) }
                }
                snapshotURLs[index] = URL(fileURLWithPath: try snapshot(of: source, into: parent))
            } catch {
                removeTree(directory)
                throw .snapshotFailed(urls[index], error)
            }
        }
        return UploadSnapshots(
            directory: directory, urls: snapshotURLs, endsClaimEarly: uploads.count == targets.count)
    }

    /// Deletes the snapshots the accessor left, and their private directory.
    func remove() {
        Self.removeTree(directory)
    }

    /// Makes the snapshots off Swift's cooperative pool (they block on file I/O) and returns them.
    /// - Throws: as ``makeIfNeeded(of:at:)``.
    static func makeOffPool(
        of targets: [FileCoordinator.Target], at urls: [URL]
    ) async throws -> UploadSnapshots? {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { () throws(FileCoordinationError) in
                    try makeIfNeeded(of: targets, at: urls)
                })
            }
        }
    }

    /// Deletes the snapshots off Swift's cooperative pool.
    func removeOffPool() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                remove()
                continuation.resume()
            }
        }
    }

    // MARK: - Making one snapshot

    /// The path to snapshot: the granted URL's, with its last component resolved for `.resolvesSymbolicLink`
    /// (the claim is on the link's target then).
    private static func sourcePath(of target: FileCoordinator.Target, grantedAt url: URL) -> String {
        let path = url.path(percentEncoded: false)
        guard case .reading(let options) = target.intent.access, options.contains(.resolvesSymbolicLink) else {
            return path
        }
        return SystemInterface.realPath(path) ?? path
    }

    /// Snapshots the item at `source` into `directory` and returns the snapshot's path. The item is opened once,
    /// without following a symbolic link and without blocking (a FIFO put in its place never hangs the copy);
    /// what it is decides the snapshot: a regular file is copied, a directory is zipped, anything else is refused.
    private static func snapshot(of source: String, into directory: String) throws -> String {
        let name = (source as NSString).lastPathComponent
        let descriptor = try SnapshotFile.retrying("open", path: source) {
            open(source, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        } ifFails: { code in
            code == ELOOP
                ? SnapshotError(
                    path: source, reason: "is a symbolic link: read it with .resolvesSymbolicLink to upload its target")
                : nil
        }
        defer { SystemCall.close(descriptor) }
        let info = try SnapshotFile.status(of: descriptor, path: source)
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            let destination = directory + "/" + name
            try SnapshotFile.copy(descriptor, from: source, to: destination, like: info)
            return destination
        case S_IFDIR:
            let destination = directory + "/" + name + ".zip"
            try UploadArchive.write(directory: descriptor, named: name, at: source, to: destination)
            return destination
        default:
            throw SnapshotError(path: source, reason: "is neither a regular file nor a directory")
        }
    }

    /// A new directory with mode 0700 under `$TMPDIR` (or /tmp).
    private static func makePrivateDirectory() throws -> String {
        let base = ProcessEnvironment.temporaryDirectory
        var template = Array((base + "/quire-upload-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw SnapshotError(path: base, call: "mkdtemp", errno: errno)
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Removes a tree without following symbolic links; failures are ignored (the tree is ours, under `$TMPDIR`).
    private static func removeTree(_ path: String) {
        try? FileManager().removeItem(atPath: path)
    }
}

extension FileCoordinator.Target {
    /// True for a read with `.forUploading`.
    var readsForUploading: Bool {
        if case .reading(let options) = intent.access { options.contains(.forUploading) } else { false }
    }
}

/// Why a snapshot could not be made: the file, and the failed system call with its errno or a reason.
struct SnapshotError: Error, Sendable, CustomStringConvertible {
    /// The file or directory concerned.
    let path: String
    /// The failed system call, if one failed.
    var call: String?
    /// Its errno.
    var errno: Int32?
    /// Why, when no system call failed.
    var reason: String?

    init(path: String, call: String, errno: Int32) {
        self.path = path
        self.call = call
        self.errno = errno
    }

    init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `open(/home/a/Vault/key): Permission denied (errno 13)`, or `/home/a/fifo is neither …`.
    var description: String {
        if let call, let errno { return "\(call)(\(path)): \(String(cString: strerror(errno))) (errno \(errno))" }
        return "\(path) \(reason ?? "cannot be snapshotted")"
    }
}
