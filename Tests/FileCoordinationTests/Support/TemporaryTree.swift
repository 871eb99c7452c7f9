import FileCoordination
import Foundation

/// A directory of its own for one test, with its symbolic links resolved (so URLs the coordinator reports
/// compare equal to the ones the test builds), removed by ``remove()``.
///
/// Presenters are registered process-wide and suites run in parallel: every test works under its own tree so
/// that it never sees another test's presenters or claims.
struct TemporaryTree {
    /// The tree's root directory.
    let root: URL

    /// Makes a new, empty, uniquely named directory.
    init(_ label: String = #function) throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).resolvingSymlinksInPath()
        let name = "quire-fc-" + label.prefix(while: { $0.isLetter || $0.isNumber }) + "-" + UUID().uuidString
        root = base.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// The URL of `relativePath` inside the tree (nothing is created).
    func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }

    /// Creates a file (and its parent directories) with `contents`.
    @discardableResult
    func file(_ relativePath: String, contents: String = "") throws -> URL {
        let url = url(relativePath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
        return url
    }

    /// Creates a directory (and its parents).
    @discardableResult
    func directory(_ relativePath: String) throws -> URL {
        let url = root.appendingPathComponent(relativePath, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Removes the tree.
    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// Adds file-package extensions for the length of a test. `FileCoordinator.filePackageExtensions` is
/// process-wide: each test uses an extension of its own, and this lock keeps their read-modify-writes apart.
enum PackageExtensions {
    private static let lock = NSLock()

    static func with<T>(_ pathExtension: String, _ body: () throws -> T) rethrows -> T {
        _ = lock.withLock { FileCoordinator.filePackageExtensions.insert(pathExtension) }
        defer { _ = lock.withLock { FileCoordinator.filePackageExtensions.remove(pathExtension) } }
        return try body()
    }
}

/// Same path, however the URL spells it.
func samePath(_ lhs: URL?, _ rhs: URL?) -> Bool {
    lhs?.standardizedFileURL.path == rhs?.standardizedFileURL.path
}

/// A file in a fresh temporary tree with a registered ``RecordingPresenter``: the setup most presenter tests share.
/// Call ``close()`` (in a `defer`) to unregister the presenter and remove the tree.
struct PresentedFile {
    let tree: TemporaryTree
    let url: URL
    let presenter: RecordingPresenter

    /// Creates `name` containing "x" and registers a presenter for it.
    init(_ name: String = "f.txt") throws {
        tree = try TemporaryTree()
        url = try tree.file(name, contents: "x")
        presenter = RecordingPresenter.registered(at: url)
    }

    func close() {
        FileCoordinator.removeFilePresenter(presenter)
        tree.remove()
    }
}
