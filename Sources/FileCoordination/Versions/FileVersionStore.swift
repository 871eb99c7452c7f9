import CoordinationArbiter
import Foundation
import QuireSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The per-user store that keeps the versions of items: for each item, a folder named by its identity
/// (`ItemIdentity`: a UUID in its `user.quire.item` extended attribute, else its inode and birth time), holding
/// `contents/<id>.<the item's extension>` (a copy of the bytes) and `<id>.json` (the version's record) per
/// version, and a `lock` file that serializes changes across processes (stores before `contents/` kept the bytes
/// as `<id>.data`: they move on first read).
///
/// Layout: `<directory>/items/<identity>/…` and `<directory>/tmp/` (staging, so that every write is a rename
/// inside one file system). Versions belong to the file: they follow it through moves and renames, and a new file
/// at a deleted file's path has none of them. Versions added where no item is (and those of stores that kept
/// versions by path) are kept by path, in a folder named by a hash of it, until an item there gets an identity.
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
        let key = try key(forItemAt: path, assigning: false)
        let folder = itemFolder(key)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        var versions: [FileVersion] = []
        for name in names where name.hasSuffix(".json") {
            let id = String(name.dropLast(5))
            guard let record = readRecord(id: id, key: key, in: folder), hasContents(of: record, in: folder) else {
                continue
            }
            versions.append(version(from: record, item: url, key: key))
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
        do {
            return try keep(
                staging, id: id, ofItemAt: url, path: path, key: key(forItemAt: path, assigning: true),
                modificationDate: attributes[.modificationDate] as? Date ?? Date(), conflict: conflict)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
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
        do {
            return try keep(
                staging, id: id, ofItemAt: url, path: path, key: key(forItemAt: path, assigning: true),
                modificationDate: Date(), conflict: conflict)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
    }

    /// Renames the staged contents `staging` into the item's folder and writes the record, under the item's lock;
    /// then tells the presenters.
    private func keep(
        _ staging: URL, id: String, ofItemAt url: URL, path: String, key: ItemKey, modificationDate: Date,
        conflict: Bool
    ) throws -> FileVersion {
        let folder = itemFolder(key)
        let record = FileVersionRecord(
            id: id, originalPath: path, itemKey: key.folderName, modificationDate: modificationDate,
            localizedName: URL(fileURLWithPath: path).lastPathComponent,
            savingComputer: Self.hostName, isConflict: conflict, isResolved: !conflict, isDiscardable: false)
        do {
            try perform("create", folder.path) { try Self.makeDirectory(folder) }
            try ItemVersionLock.withLock(at: folder.appendingPathComponent("lock").path) {
                let contents = dataURL(id: id, name: record.localizedName, in: folder)
                try perform("create", contents.path) { try Self.makeDirectory(contents.deletingLastPathComponent()) }
                try Self.rename(staging.path, to: contents.path)
                try writeRecord(record, in: folder)
            }
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        let added = version(from: record, item: url, key: key)
        didChange(.gained(added))
        return added
    }

    /// Sets the resolved and/or discardable flags of a stored version; returns the version as now stored.
    /// Resolving an unresolved conflict version is reported as ``FileVersionChange/resolved(_:)``.
    public func update(_ version: FileVersion, resolved: Bool? = nil, discardable: Bool? = nil) throws -> FileVersion {
        guard !version.isCurrent else { throw FileVersionError.currentVersionIsTheItem(version.itemURL) }
        _ = try Self.itemPath(of: version.itemURL)
        let key = version.itemKey
        let folder = itemFolder(key)
        let (before, after) = try ItemVersionLock.withLock(at: folder.appendingPathComponent("lock").path) {
            guard let record = readRecord(id: version.id, key: key, in: folder) else {
                throw FileVersionError.noSuchVersion(id: version.id, item: version.itemURL)
            }
            var changed = record
            // Only a conflict version can be unresolved.
            if let resolved, record.isConflict { changed.isResolved = resolved }
            if let discardable { changed.isDiscardable = discardable }
            if changed != record { try writeRecord(changed, in: folder) }
            return (record, changed)
        }
        let updated = self.version(from: after, item: version.itemURL, key: key)
        if before.isConflict && !before.isResolved && after.isResolved { didChange(.resolved(updated)) }
        return updated
    }

    /// Removes a stored version (its metadata, then its contents).
    public func remove(_ version: FileVersion) throws {
        guard !version.isCurrent else { throw FileVersionError.currentVersionIsTheItem(version.itemURL) }
        _ = try Self.itemPath(of: version.itemURL)
        let folder = itemFolder(version.itemKey)
        let removed = try ItemVersionLock.withLock(at: folder.appendingPathComponent("lock").path) {
            try removeFiles(of: version.id, key: version.itemKey, in: folder)
        }
        guard removed else { throw FileVersionError.noSuchVersion(id: version.id, item: version.itemURL) }
        didChange(.lost(version))
    }

    /// Removes every stored version of the item at `url`, conflict versions included.
    public func removeAll(ofItemAt url: URL) throws {
        let listed = try versions(ofItemAt: url)
        guard let key = listed.first?.itemKey else { return }
        let folder = itemFolder(key)
        let removed = try ItemVersionLock.withLock(at: folder.appendingPathComponent("lock").path) {
            try listed.filter { try removeFiles(of: $0.id, key: key, in: folder) }
        }
        for version in removed { didChange(.lost(version)) }
    }

    /// Replaces the item at `target` with the contents of `version` (atomically for a file: a copy beside it,
    /// then a rename over it) and returns the URL written: `target` with the version's extension, as Apple's
    /// `replaceItem` does (when the extensions differ, the item at `target` is removed). With `moving`, the stored
    /// contents are moved and the version leaves the store.
    public func replaceItem(at requested: URL, with version: FileVersion, moving: Bool) throws -> URL {
        let requestedPath = try Self.itemPath(of: requested)
        let suffix = version.url.pathExtension
        let target =
            suffix.isEmpty || requested.pathExtension == suffix
            ? requested : requested.deletingPathExtension().appendingPathExtension(suffix)
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
            let key = version.itemKey
            let folder = itemFolder(key)
            try ItemVersionLock.withLock(at: folder.appendingPathComponent("lock").path) {
                guard let record = readRecord(id: version.id, key: key, in: folder), hasContents(of: record, in: folder)
                else {
                    throw FileVersionError.noSuchVersion(id: version.id, item: version.itemURL)
                }
                let source = dataURL(id: version.id, name: record.localizedName, in: folder)
                try perform("copy the version to", staging.path) {
                    try FileManager.default.copyItem(at: source, to: staging)
                }
                if moving { _ = try removeFiles(of: version.id, key: key, in: folder) }
            }
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: targetPath, isDirectory: &isDirectory), isDirectory.boolValue {
            try perform("remove the directory", targetPath) { try FileManager.default.removeItem(atPath: targetPath) }
        }
        // The item stays the same item (its versions stay listed): the staged copy takes its identity first.
        for path in [targetPath, requestedPath] {
            guard case .identified(.tagged(let identity))? = try? ItemIdentity.lookUp(path) else { continue }
            ItemIdentity.overwriteTag(staging.path, with: identity)
            break
        }
        do {
            try Self.rename(staging.path, to: targetPath)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
        if targetPath != requestedPath {
            try perform("remove the replaced item", requestedPath) {
                if FileManager.default.fileExists(atPath: requestedPath) {
                    try FileManager.default.removeItem(atPath: requestedPath)
                }
            }
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
