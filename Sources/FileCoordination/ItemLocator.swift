import CoordinationArbiter
import Foundation
import QuireSystem

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
        var absolute = SystemCall.absolutePath(raw)
        if !absolute.withUTF8(isNormalized) { absolute = normalize(absolute) }
        // Work on the contiguous bytes: String index arithmetic costs more than the whole scan, and the parent
        // goes to realpath (in this thread's buffers) without becoming a String first. The parent's components
        // and the last one go into one array, built once (no intermediate paths).
        let resolved = absolute.withUTF8 { bytes -> [String]? in
            guard bytes.count > 1, let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return nil }
            let last = String(decoding: UnsafeBufferPointer(rebasing: bytes[(slash + 1)...]), as: UTF8.self)
            var components = slash == 0 ? [] : resolvedDirectory(UnsafeBufferPointer(rebasing: bytes[..<slash]))
            components.append(last)
            return components
        }
        guard let resolved else { return .root }
        let path = ItemPath(components: resolved)
        if resolvingLastComponent, let target = SystemInterface.realPath(path.description) {
            return ItemPath(target)
        }
        return path
    }

    /// The components of an absolute path (UTF-8), with room for one more (the caller appends the last one).
    private static func components(of bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var count = 1
        for byte in bytes where byte == UInt8(ascii: "/") { count += 1 }
        var components: [String] = []
        components.reserveCapacity(count)
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
            if index > start {
                components.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
            }
            start = index + 1
        }
        return components
    }

    /// True if `path` (UTF-8) is absolute with no empty, `.` or `..` component and no trailing slash.
    private static func isNormalized(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        var sawSlashDot = false
        for byte in path {
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
        if previous == UInt8(ascii: "/") { return path.count == 1 }
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

    /// Resolves a normalized absolute directory other than `/` (UTF-8) with realpath, or as much of it as
    /// exists; its components.
    private static func resolvedDirectory(_ directory: UnsafeBufferPointer<UInt8>) -> [String] {
        if let resolved = SystemInterface.withRealPath(of: directory, components(of:)) { return resolved }
        return resolveUncached(String(decoding: directory, as: UTF8.self)).components
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
