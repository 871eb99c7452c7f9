import CoordinationArbiter
import Foundation

/// Turns URLs into the canonical paths the arbiter compares, and paths back into URLs.
///
/// A path is made absolute (against the current directory), `.` and `..` are removed, and symbolic links in
/// the parent directories are resolved, so a URL under a symlinked directory names the same item as its
/// resolved path. The last component is resolved only when asked (`.resolvesSymbolicLink`). Parents that do
/// not exist yet are resolved as far as they exist. Parents are resolved on every call: a renamed directory
/// keeps its inode, so a remembered resolution cannot be checked more cheaply than by resolving again.
enum ItemLocator {
    /// The canonical path of a file URL.
    /// - Throws: ``FileCoordinationError/notAFileURL(_:)`` for any other URL.
    static func path(of url: URL, resolvingLastComponent: Bool = false) throws(FileCoordinationError) -> ItemPath {
        guard url.isFileURL else { throw .notAFileURL(url) }
        return path(ofAbsoluteOrRelative: rawPath(of: url), resolvingLastComponent: resolvingLastComponent)
    }

    /// The canonical path of a file URL, or nil for a non-file URL.
    static func pathIfFileURL(_ url: URL?) -> ItemPath? {
        guard let url, url.isFileURL else { return nil }
        return path(ofAbsoluteOrRelative: rawPath(of: url), resolvingLastComponent: false)
    }

    /// The file-system path of a file URL, resolved against its base URL if it has one
    /// (`path(percentEncoded: false)` costs a quarter of `path`).
    private static func rawPath(of url: URL) -> String {
        url.baseURL == nil ? url.path(percentEncoded: false) : url.absoluteURL.path(percentEncoded: false)
    }

    static func path(ofAbsoluteOrRelative raw: String, resolvingLastComponent: Bool) -> ItemPath {
        var absolute = raw.utf8.first == UInt8(ascii: "/") ? raw : SystemInterface.currentDirectory() + "/" + raw
        if !isNormalized(absolute) { absolute = normalize(absolute) }
        guard absolute.utf8.count > 1, let slash = absolute.utf8.lastIndex(of: UInt8(ascii: "/")) else { return .root }
        let last = String(absolute[absolute.index(after: slash)...])
        let parent = resolvedDirectory(slash == absolute.startIndex ? "/" : String(absolute[..<slash]))
        if resolvingLastComponent, let target = SystemInterface.realPath(parent.appending(last).description) {
            return ItemPath(target)
        }
        return parent.appending(last)
    }

    /// True if `path` is absolute with no empty, `.` or `..` component and no trailing slash.
    private static func isNormalized(_ path: String) -> Bool {
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        var sawSlashDot = false
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if previous == UInt8(ascii: "/") { return false }
                if previous == UInt8(ascii: ".") && (beforePrevious == UInt8(ascii: "/") || sawSlashDot) {
                    return false
                }
            }
            sawSlashDot = previous == UInt8(ascii: ".") && beforePrevious == UInt8(ascii: "/")
            beforePrevious = previous
            previous = byte
        }
        if previous == UInt8(ascii: "/") { return path.utf8.count == 1 }
        if previous == UInt8(ascii: ".") && (beforePrevious == UInt8(ascii: "/") || sawSlashDot) { return false }
        return true
    }

    /// Removes empty, `.` and `..` components from an absolute path.
    private static func normalize(_ path: String) -> String {
        var components: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == ".." {
                _ = components.popLast()
                continue
            }
            components.append(component)
        }
        return "/" + components.joined(separator: "/")
    }

    /// Resolves a normalized absolute directory with realpath, or as much of it as exists.
    private static func resolvedDirectory(_ directory: String) -> ItemPath {
        if directory == "/" { return .root }
        if let resolved = SystemInterface.realPath(directory) { return ItemPath(resolved) }
        return resolveUncached(directory)
    }

    private static func resolveUncached(_ directory: String) -> ItemPath {
        let components = ItemPath(directory).components
        var existing = components.count
        while existing > 0 {
            let prefix = "/" + components.prefix(existing).joined(separator: "/")
            if let resolved = SystemInterface.realPath(prefix) {
                return ItemPath(components: ItemPath(resolved).components + components.dropFirst(existing))
            }
            existing -= 1
        }
        return ItemPath(components: components)
    }

    /// The file URL of a canonical path.
    static func url(of path: ItemPath) -> URL {
        URL(fileURLWithPath: path.description)
    }
}
