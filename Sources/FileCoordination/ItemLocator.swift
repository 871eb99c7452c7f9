import CoordinationArbiter
import Foundation
import Synchronization

/// Turns URLs into the canonical paths the arbiter compares, and paths back into URLs.
///
/// A path is made absolute (against the current directory), `.` and `..` are removed, and symbolic links in
/// the parent directories are resolved, so a URL under a symlinked directory names the same item as its
/// resolved path. The last component is resolved only when asked (`.resolvesSymbolicLink`). Parents that do
/// not exist yet are resolved as far as they exist. Resolved parents are remembered together with their
/// device and inode, and reused after one `stat` shows the directory is still the same one.
enum ItemLocator {
    /// The canonical path of a file URL.
    /// - Throws: ``FileCoordinationError/notAFileURL(_:)`` for any other URL.
    static func path(of url: URL, resolvingLastComponent: Bool = false) throws(FileCoordinationError) -> ItemPath {
        guard url.isFileURL else { throw .notAFileURL(url) }
        return path(ofAbsoluteOrRelative: url.path, resolvingLastComponent: resolvingLastComponent)
    }

    /// The canonical path of a file URL, or nil for a non-file URL.
    static func pathIfFileURL(_ url: URL?) -> ItemPath? {
        guard let url, url.isFileURL else { return nil }
        return path(ofAbsoluteOrRelative: url.path, resolvingLastComponent: false)
    }

    static func path(ofAbsoluteOrRelative raw: String, resolvingLastComponent: Bool) -> ItemPath {
        var components = raw.utf8.first == UInt8(ascii: "/") ? [] : split(SystemInterface.currentDirectory())
        for component in raw.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            if component.count == 1 && component.first == UInt8(ascii: ".") { continue }
            if component.count == 2 && component.elementsEqual("..".utf8) {
                _ = components.popLast()
                continue
            }
            components.append(String(decoding: component, as: UTF8.self))
        }
        guard let last = components.popLast() else { return .root }
        let parent = resolvedDirectory(components)
        if resolvingLastComponent, let target = SystemInterface.realPath(parent.appending(last).description) {
            return ItemPath(components: split(target))
        }
        return parent.appending(last)
    }

    private static func split(_ path: String) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    private struct Resolved {
        let path: ItemPath
        let identity: SystemInterface.FileIdentity
    }

    private static let cache = Mutex<[[String]: Resolved]>([:])
    private static let cacheLimit = 4096

    /// Resolves a directory with realpath (or as much of it as exists), through the cache.
    private static func resolvedDirectory(_ components: [String]) -> ItemPath {
        if components.isEmpty { return .root }
        let joined = "/" + components.joined(separator: "/")
        guard let identity = SystemInterface.identity(of: joined) else { return resolveUncached(components) }
        if let known = cache.withLock({ $0[components] }), known.identity == identity { return known.path }
        guard let resolved = SystemInterface.realPath(joined) else { return resolveUncached(components) }
        let path = ItemPath(components: split(resolved))
        cache.withLock { cache in
            if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[components] = Resolved(path: path, identity: identity)
        }
        return path
    }

    private static func resolveUncached(_ components: [String]) -> ItemPath {
        var existing = components.count
        while existing > 0 {
            let prefix = "/" + components.prefix(existing).joined(separator: "/")
            if let resolved = SystemInterface.realPath(prefix) {
                return ItemPath(components: split(resolved) + components.dropFirst(existing))
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
