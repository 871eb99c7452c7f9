import CoordinationArbiter
import Foundation
import QuireSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The per-user store that keeps the versions of items: for each item, a folder named by a hash of its
/// absolute path, holding `<id>.data` (a copy of the bytes) and `<id>.json` (the version's record) per
/// version, and a `lock` file that serializes changes across processes.
///
/// Layout: `<directory>/items/<hash>/…` and `<directory>/tmp/` (staging, so that every write is a rename
/// inside one file system). Items are keyed by path only: a version stays with the path, not with a moved file.
/// Contents are renamed into place before their metadata, and metadata is removed before contents, so a
/// reader that lists without the lock never sees a version without its bytes. A metadata file that is not a
/// record Quire wrote for that item (corrupt, too big, wrong name) is skipped.
///
/// Every operation blocks on file I/O, as Apple's `NSFileVersion` does: call it from a thread of your own or a
/// coordinated accessor, not from Swift's cooperative pool.
public struct FileVersionStore: Sendable, Hashable {
    /// The folder that holds the store.
    public let directory: URL

    /// A store in `directory` (created on first write, mode 0700).
    public init(directory: URL) {
        self.directory = directory.standardizedFileURL
    }

    /// The store used by ``FileVersion``'s functions and by `NSFileVersion`: ``standardDirectory`` unless a
    /// task binds another one with `FileVersionStore.$current.withValue(…)` (tests and tools do).
    @TaskLocal public static var current = FileVersionStore(directory: standardDirectory)

    /// `QUIRE_VERSIONS_DIR` if set, else `$XDG_DATA_HOME/quire/versions`, else `~/.local/share/quire/versions`.
    public static var standardDirectory: URL {
        if let explicit = ProcessEnvironment.value("QUIRE_VERSIONS_DIR"), !explicit.isEmpty {
            return URL(fileURLWithPath: explicit, isDirectory: true)
        }
        if let data = ProcessEnvironment.value("XDG_DATA_HOME"), data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("quire/versions")
        }
        let home = ProcessEnvironment.value("HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share/quire/versions")
    }

    // MARK: Reading

    /// The stored (non-current) versions of the item at `url`, oldest first; the item itself need not exist.
    public func versions(ofItemAt url: URL) throws -> [FileVersion] {
        let path = try Self.itemPath(of: url)
        let folder = itemFolder(forPath: path)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        var versions: [FileVersion] = []
        for name in names where name.hasSuffix(".json") {
            let id = String(name.dropLast(5))
            guard let record = readRecord(id: id, path: path, in: folder),
                FileManager.default.fileExists(atPath: dataURL(id: id, in: folder).path)
            else { continue }
            versions.append(version(from: record, item: url, folder: folder))
        }
        return versions.sorted {
            ($0.modificationDate ?? .distantPast, $0.id) < ($1.modificationDate ?? .distantPast, $1.id)
        }
    }

    // MARK: Changing

    /// Adds a version of the item at `url` whose contents are those of `contents` now (copied, or moved into
    /// the store when `moving`); a `conflict` version starts unresolved.
    public func add(ofItemAt url: URL, contentsOf contents: URL, moving: Bool, conflict: Bool) throws -> FileVersion {
        let path = try Self.itemPath(of: url)
        guard FileManager.default.fileExists(atPath: path) else { throw FileVersionError.noSuchItem(url) }
        let contentsPath = try Self.itemPath(of: contents)
        let attributes = try perform("read the attributes of", contentsPath) {
            try FileManager.default.attributesOfItem(atPath: contentsPath)
        }
        let id = UUID().uuidString
        let staging = try stagingURL(id + ".data")
        try perform(moving ? "move into the store" : "copy into the store", contentsPath) {
            if moving {
                try FileManager.default.moveItem(atPath: contentsPath, toPath: staging.path)
            } else {
                try FileManager.default.copyItem(atPath: contentsPath, toPath: staging.path)
            }
        }
        return try keep(
            staging, id: id, ofItemAt: url, path: path,
            modificationDate: attributes[.modificationDate] as? Date ?? Date(), conflict: conflict)
    }

    /// Adds a version of the item at `url` whose contents are `data` (a `conflict` version starts unresolved), dated
    /// now. Unlike ``add(ofItemAt:contentsOf:moving:conflict:)`` it opens nothing outside the store, not even the
    /// item (which need not exist): for a caller that read the bytes itself, through whatever confinement it uses.
    /// - Throws: ``FileVersionError`` when the store cannot be written.
    public func add(ofItemAt url: URL, data: Data, conflict: Bool) throws -> FileVersion {
        let path = try Self.itemPath(of: url)
        let id = UUID().uuidString
        let staging = try stagingURL(id + ".data")
        try perform("write", staging.path) { try data.write(to: staging) }
        return try keep(staging, id: id, ofItemAt: url, path: path, modificationDate: Date(), conflict: conflict)
    }

    /// Renames the staged contents `staging` into the item's folder and writes the record, under the item's lock;
    /// then tells the presenters.
    private func keep(
        _ staging: URL, id: String, ofItemAt url: URL, path: String, modificationDate: Date, conflict: Bool
    ) throws -> FileVersion {
        let folder = itemFolder(forPath: path)
        let record = FileVersionRecord(
            id: id, originalPath: path, modificationDate: modificationDate,
            localizedName: URL(fileURLWithPath: path).lastPathComponent,
            savingComputer: Self.hostName, isConflict: conflict, isResolved: !conflict, isDiscardable: false)
        do {
            try perform("create", folder.path) { try Self.makeDirectory(folder) }
            try ItemVersionLock.withLock(at: folder.appendingPathComponent("lock").path) {
                try Self.rename(staging.path, to: dataURL(id: id, in: folder).path)
                try writeRecord(record, in: folder)
            }
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        let added = version(from: record, item: url, folder: folder)
        didChange(.gained(added))
        return added
    }

    /// Sets the resolved and/or discardable flags of a stored version; returns the version as now stored.
    /// Resolving an unresolved conflict version is reported as ``FileVersionChange/resolved(_:)``.
    public func update(_ version: FileVersion, resolved: Bool? = nil, discardable: Bool? = nil) throws -> FileVersion {
        guard !version.isCurrent else { throw FileVersionError.currentVersionIsTheItem(version.itemURL) }
        let path = try Self.itemPath(of: version.itemURL)
        let folder = itemFolder(forPath: path)
        let (before, after) = try ItemVersionLock.withLock(at: folder.appendingPathComponent("lock").path) {
            guard let record = readRecord(id: version.id, path: path, in: folder) else {
                throw FileVersionError.noSuchVersion(id: version.id, item: version.itemURL)
            }
            var changed = record
            // Only a conflict version can be unresolved.
            if let resolved, record.isConflict { changed.isResolved = resolved }
            if let discardable { changed.isDiscardable = discardable }
            if changed != record { try writeRecord(changed, in: folder) }
            return (record, changed)
        }
        let updated = self.version(from: after, item: version.itemURL, folder: folder)
        if before.isConflict && !before.isResolved && after.isResolved { didChange(.resolved(updated)) }
        return updated
    }

    /// Removes a stored version (its metadata, then its contents).
    public func remove(_ version: FileVersion) throws {
        guard !version.isCurrent else { throw FileVersionError.currentVersionIsTheItem(version.itemURL) }
        let path = try Self.itemPath(of: version.itemURL)
        let folder = itemFolder(forPath: path)
        let removed = try ItemVersionLock.withLock(at: folder.appendingPathComponent("lock").path) {
            try removeFiles(of: version.id, path: path, in: folder)
        }
        guard removed else { throw FileVersionError.noSuchVersion(id: version.id, item: version.itemURL) }
        didChange(.lost(version))
    }

    /// Removes every stored version of the item at `url`, conflict versions included.
    public func removeAll(ofItemAt url: URL) throws {
        let path = try Self.itemPath(of: url)
        let folder = itemFolder(forPath: path)
        let listed = try versions(ofItemAt: url)
        guard !listed.isEmpty else { return }
        let removed = try ItemVersionLock.withLock(at: folder.appendingPathComponent("lock").path) {
            try listed.filter { try removeFiles(of: $0.id, path: path, in: folder) }
        }
        for version in removed { didChange(.lost(version)) }
    }

    /// Replaces the item at `target` with the contents of `version` (atomically for a file: a copy beside it,
    /// then a rename over it). With `moving`, the stored contents are moved and the version leaves the store.
    public func replaceItem(at target: URL, with version: FileVersion, moving: Bool) throws -> URL {
        let targetPath = try Self.itemPath(of: target)
        let directory = (targetPath as NSString).deletingLastPathComponent
        let staging = URL(fileURLWithPath: directory)
            .appendingPathComponent(".\((targetPath as NSString).lastPathComponent).quire-version-\(UUID().uuidString)")
        if version.isCurrent {
            guard Self.standardizedPath(version.url) != targetPath else { return target }
            try perform("copy the current version to", staging.path) {
                try FileManager.default.copyItem(at: version.url, to: staging)
            }
        } else {
            let path = try Self.itemPath(of: version.itemURL)
            let folder = itemFolder(forPath: path)
            let source = dataURL(id: version.id, in: folder)
            try ItemVersionLock.withLock(at: folder.appendingPathComponent("lock").path) {
                guard readRecord(id: version.id, path: path, in: folder) != nil else {
                    throw FileVersionError.noSuchVersion(id: version.id, item: version.itemURL)
                }
                try perform("copy the version to", staging.path) {
                    try FileManager.default.copyItem(at: source, to: staging)
                }
                if moving { _ = try removeFiles(of: version.id, path: path, in: folder) }
            }
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: targetPath, isDirectory: &isDirectory), isDirectory.boolValue {
            try perform("remove the directory", targetPath) { try FileManager.default.removeItem(atPath: targetPath) }
        }
        do {
            try Self.rename(staging.path, to: targetPath)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        if moving && !version.isCurrent { didChange(.lost(version)) }
        return target
    }

    /// A new, empty folder in the store's staging area, on the store's file system, where a caller can write the
    /// contents of a new version before adding it with `moving: true`.
    public func temporaryDirectory(forNewVersionOfItemAt url: URL) -> URL {
        let folder = directory.appendingPathComponent("tmp/new-\(UUID().uuidString)", isDirectory: true)
        try? Self.makeDirectory(folder)
        return folder
    }

    /// Tells the presenters of the item, and of the directories that contain it, in every process of the user
    /// (`presentedItemDidGain/Lose/ResolveConflict`, `presentedSubitem(at:didGain/didLose/didResolve:)`): a
    /// ``VersionNotice`` through the arbiter, as every presenter message. Called after every change to the store
    /// made by this process, outside the item's lock; it does not wait for the presenters.
    func didChange(_ change: FileVersionChange) {
        let (kind, version): (VersionNotice.Change, FileVersion)
        switch change {
        case .gained(let changed): (kind, version) = (.gained, changed)
        case .lost(let changed): (kind, version) = (.lost, changed)
        case .resolved(let changed): (kind, version) = (.resolved, changed)
        }
        guard let path = ItemLocator.pathIfFileURL(version.itemURL), let encoded = version.noticeEncoding else {
            return
        }
        CoordinationClient.shared.endpoint.submit(.itemVersionsChanged(path, VersionNotice(kind, version: encoded)))
    }
}

/// A change to the versions of an item, as the store reports it to the presenters of the item.
public enum FileVersionChange: Sendable, Hashable {
    /// A version was added (`presentedItemDidGain`).
    case gained(FileVersion)
    /// A version was removed (`presentedItemDidLose`).
    case lost(FileVersion)
    /// A conflict version was resolved (`presentedItemDidResolveConflict`).
    case resolved(FileVersion)
}
