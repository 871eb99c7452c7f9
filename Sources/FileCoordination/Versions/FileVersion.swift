import Foundation

/// A version of a file: the current one (the item itself) or a copy kept in the versions store
/// (``FileVersionStore``), Quire's counterpart of Apple's `NSFileVersion`.
///
/// A value: it describes the version when it was read. ``setResolved(_:)`` and ``setDiscardable(_:)`` change the
/// store and return the new value. The functions use `FileVersionStore.current` and block on file I/O.
public struct FileVersion: Sendable, Hashable, Identifiable {
    /// The version's identifier: a UUID string for a stored version; for the current version, `current-` and its
    /// modification time, size and inode, so that it changes when the item's contents do.
    public let id: String
    /// The item this is a version of.
    public let itemURL: URL
    /// Where the version's contents are: the item for the current version, a file in the store otherwise.
    public let url: URL
    /// Whether this is the current version (the item itself).
    public let isCurrent: Bool
    /// When the contents were last modified (for a stored version: when it was added).
    public let modificationDate: Date?
    /// The name shown for the version: the item's file name.
    public let localizedName: String?
    /// The host name of the computer that saved the version (nil for the current version).
    public let savingComputerName: String?
    /// Whether this is a conflict version (added with ``addConflictVersion(ofItemAt:withContentsOf:)``).
    public let isConflict: Bool
    /// Whether the version is resolved: false only for a conflict version nobody has resolved yet.
    public let isResolved: Bool
    /// Whether the version may be removed when space is needed (Quire never removes one on its own).
    public let isDiscardable: Bool
    /// The store the version lives in.
    let store: FileVersionStore
    /// The folder of the item's versions in the store (the item's identity, or its path).
    let itemKey: FileVersionStore.ItemKey

    /// The current version of the item at `url`: the item itself, or nil when there is no item.
    public static func current(ofItemAt url: URL) throws -> FileVersion? {
        let path = try FileVersionStore.itemPath(of: url)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let size = (attributes[.size] as? NSNumber)?.uint64Value ?? 0
        let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
        return FileVersion(
            id: "current-\(modified.bitPattern)-\(size)-\(inode)", itemURL: url, url: url, isCurrent: true,
            modificationDate: attributes[.modificationDate] as? Date,
            localizedName: FileManager.default.displayName(atPath: path), savingComputerName: nil,
            isConflict: false, isResolved: true, isDiscardable: false, store: FileVersionStore.current,
            itemKey: .path(path))
    }

    /// Every stored version of the item at `url`, conflict versions included, oldest first.
    public static func otherVersions(ofItemAt url: URL) throws -> [FileVersion] {
        try FileVersionStore.current.versions(ofItemAt: url)
    }

    /// The conflict versions of the item at `url` that are not resolved yet, oldest first.
    public static func unresolvedConflictVersions(ofItemAt url: URL) throws -> [FileVersion] {
        try otherVersions(ofItemAt: url).filter { $0.isConflict && !$0.isResolved }
    }

    /// Keeps the contents of `contents` as a new version of the item at `url` (moved into the store when
    /// `byMoving`).
    @discardableResult
    public static func add(ofItemAt url: URL, withContentsOf contents: URL, byMoving: Bool = false) throws
        -> FileVersion
    {
        try FileVersionStore.current.add(ofItemAt: url, contentsOf: contents, moving: byMoving, conflict: false)
    }

    /// Keeps the contents of `contents` as an unresolved conflict version of the item at `url`: what Apple's
    /// iCloud does when two computers saved the file; Quire calls it when a document meets a conflict.
    @discardableResult
    public static func addConflictVersion(ofItemAt url: URL, withContentsOf contents: URL) throws -> FileVersion {
        try FileVersionStore.current.add(ofItemAt: url, contentsOf: contents, moving: false, conflict: true)
    }

    /// Removes every stored version of the item at `url`, conflict versions included.
    public static func removeOtherVersions(ofItemAt url: URL) throws {
        try FileVersionStore.current.removeAll(ofItemAt: url)
    }

    /// Replaces the item at `target` with this version's contents; with `byMoving`, the version leaves the store.
    @discardableResult
    public func replaceItem(at target: URL, byMoving: Bool = false) throws -> URL {
        try store.replaceItem(at: target, with: self, moving: byMoving)
    }

    /// Removes this version from the store (the current version cannot be removed).
    public func remove() throws {
        try store.remove(self)
    }

    /// Marks a conflict version resolved (or unresolved again); returns the version as now stored.
    public func setResolved(_ resolved: Bool) throws -> FileVersion {
        try store.update(self, resolved: resolved)
    }

    /// Marks the version discardable or not; returns the version as now stored.
    public func setDiscardable(_ discardable: Bool) throws -> FileVersion {
        try store.update(self, discardable: discardable)
    }
}
