import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The store's paths and file operations.
extension FileVersionStore {
    /// The absolute, standardized path of a file URL.
    static func itemPath(of url: URL) throws -> String {
        guard url.isFileURL else { throw FileVersionError.notAFileURL(url) }
        return standardizedPath(url)
    }

    /// `url`'s path, standardized (no `.`, `..` or trailing slash).
    static func standardizedPath(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// Where an item's versions are kept: the folder of its identity (``ItemIdentity``), or of its path while no
    /// item with an identity is there.
    enum ItemKey: Hashable, Sendable {
        /// The folder named ``ItemIdentity/folderName``.
        case identity(String)
        /// The folder of an absolute, standardized path: versions kept before any item with an identity was there.
        case path(String)

        /// The folder's name under `items/`.
        var folderName: String {
            switch self {
            case .identity(let name): name
            case .path(let path): FileVersionStore.pathFolderName(path)
            }
        }
    }

    /// The key of the item at `path`: its identity; its path when there is no item, or (unless `assigning`) an
    /// item without an identity yet. With `assigning`, an item without one gets one, and takes the versions kept
    /// by its path.
    func key(forItemAt path: String, assigning: Bool) throws -> ItemKey {
        if assigning {
            guard let identity = try ItemIdentity.assign(path) else { return .path(path) }
            let key = ItemKey.identity(identity.folderName)
            try adoptVersions(keptBy: path, into: key)
            return key
        }
        switch try ItemIdentity.lookUp(path) {
        case .identified(let identity): return .identity(identity.folderName)
        case .untagged, .missing: return .path(path)
        }
    }

    /// Moves the versions kept by `path` (added while no item was there, or by a store that kept every version by
    /// path) into the folder of `key`, the identity the item at `path` now has.
    private func adoptVersions(keptBy path: String, into key: ItemKey) throws {
        let source = itemFolder(.path(path))
        guard FileManager.default.fileExists(atPath: source.path) else { return }
        let target = itemFolder(key)
        try perform("create", target.path) { try Self.makeDirectory(target) }
        try ItemVersionLock.withLock(at: source.appendingPathComponent("lock").path) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: source.path)) ?? []
            for name in names where name.hasSuffix(".json") {
                let id = String(name.dropLast(5))
                guard var record = readRecord(id: id, key: .path(path), in: source), hasContents(of: record, in: source)
                else { continue }
                record.itemKey = key.folderName
                let contents = dataURL(id: id, name: record.localizedName, in: target)
                try perform("create", contents.path) { try Self.makeDirectory(contents.deletingLastPathComponent()) }
                try Self.rename(dataURL(id: id, name: record.localizedName, in: source).path, to: contents.path)
                try writeRecord(record, in: target)
                let metadata = source.appendingPathComponent(name)
                try perform("remove", metadata.path) { try FileManager.default.removeItem(at: metadata) }
            }
        }
    }

    /// The folder of `key` under `items/`.
    func itemFolder(_ key: ItemKey) -> URL {
        itemFolder(named: key.folderName)
    }

    /// The folder named `name` under `items/`.
    func itemFolder(named name: String) -> URL {
        directory.appendingPathComponent("items", isDirectory: true).appendingPathComponent(name, isDirectory: true)
    }

    /// The name of a path's folder: a 64-bit FNV-1a hash of the path, in 16 hex digits (records carry the path,
    /// so two paths that share a hash never see each other's versions).
    static func pathFolderName(_ path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Whether `name` can be a folder name under `items/` (from a version notice): a path's 16 hex digits, or an
    /// identity's `u-`/`i-` name of lowercase hex digits, dots and dashes.
    static func isValidFolderName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 96 else { return false }
        let allowed = bytes.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || $0 == 45 || $0 == 46 }
        if bytes.count == 16 && allowed { return true }
        return (name.hasPrefix("u-") || name.hasPrefix("i-")) && bytes.dropFirst(2).allSatisfy {
            ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || $0 == 45 || $0 == 46
        }
    }

    /// The contents of version `id` of an item named `name` (its record's `localizedName`): `contents/<id>` and
    /// the name's extension, as Apple names a version's file (`id` is a validated UUID and the extension is made of
    /// letters and digits, so the name stays in `folder`).
    func dataURL(id: String, name: String, in folder: URL) -> URL {
        let contents = folder.appendingPathComponent("contents", isDirectory: true)
        let suffix = (name as NSString).pathExtension
        let valid =
            !suffix.isEmpty && suffix.utf8.count <= 32
            && suffix.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || $0 == 95 }
        return contents.appendingPathComponent(valid ? id + "." + suffix : id)
    }

    /// Where stores before `contents/` kept version `id`'s contents: `<id>.data` beside its record.
    func legacyDataURL(id: String, in folder: URL) -> URL {
        folder.appendingPathComponent(id + ".data")
    }

    /// Whether version `id`'s contents are there, moving them from where an older store kept them if needed.
    func hasContents(of record: FileVersionRecord, in folder: URL) -> Bool {
        let data = dataURL(id: record.id, name: record.localizedName, in: folder)
        if FileManager.default.fileExists(atPath: data.path) { return true }
        let legacy = legacyDataURL(id: record.id, in: folder)
        guard FileManager.default.fileExists(atPath: legacy.path) else { return false }
        try? Self.makeDirectory(data.deletingLastPathComponent())
        try? Self.rename(legacy.path, to: data.path)
        return FileManager.default.fileExists(atPath: data.path)
    }

    /// A fresh name in the staging folder (created if needed).
    func stagingURL(_ name: String) throws -> URL {
        let staging = directory.appendingPathComponent("tmp", isDirectory: true)
        try perform("create", staging.path) { try Self.makeDirectory(staging) }
        return staging.appendingPathComponent("\(UUID().uuidString)-\(name)")
    }

    /// The record of version `id` of the item of `key`, or nil when it is missing or not a record Quire wrote for
    /// it.
    func readRecord(id: String, key: ItemKey, in folder: URL) -> FileVersionRecord? {
        guard FileVersionRecord.isValidIdentifier(id),
            let handle = FileHandle(forReadingAtPath: folder.appendingPathComponent(id + ".json").path)
        else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: FileVersionRecord.sizeLimit + 1) else { return nil }
        return FileVersionRecord.decode(data, id: id, key: key)
    }

    /// Writes `record` to `<id>.json` in `folder` atomically (a staged file, then a rename).
    func writeRecord(_ record: FileVersionRecord, in folder: URL) throws {
        let staged = try stagingURL(record.id + ".json")
        let data = try perform("encode the metadata of", staged.path) { try record.encoded() }
        try perform("write", staged.path) { try data.write(to: staged) }
        try Self.rename(staged.path, to: folder.appendingPathComponent(record.id + ".json").path)
    }

    /// Removes version `id`'s metadata, then its contents; false when it had no metadata (already removed).
    func removeFiles(of id: String, key: ItemKey, in folder: URL) throws -> Bool {
        guard let record = readRecord(id: id, key: key, in: folder) else { return false }
        let metadata = folder.appendingPathComponent(id + ".json")
        try perform("remove", metadata.path) { try FileManager.default.removeItem(at: metadata) }
        try? FileManager.default.removeItem(at: dataURL(id: id, name: record.localizedName, in: folder))
        try? FileManager.default.removeItem(at: legacyDataURL(id: id, in: folder))
        return true
    }

    /// The ``FileVersion`` for a stored record.
    func version(from record: FileVersionRecord, item: URL, key: ItemKey) -> FileVersion {
        FileVersion(
            id: record.id, itemURL: item, url: dataURL(id: record.id, name: record.localizedName, in: itemFolder(key)),
            isCurrent: false,
            modificationDate: record.modificationDate, localizedName: record.localizedName,
            savingComputerName: record.savingComputer, isConflict: record.isConflict, isResolved: record.isResolved,
            isDiscardable: record.isDiscardable, store: self, itemKey: key)
    }

    /// Runs `body`, turning a Foundation error into ``FileVersionError/storeFailed(operation:path:underlying:)``.
    func perform<R>(_ operation: String, _ path: String, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as FileVersionError {
            throw error
        } catch {
            throw FileVersionError.storeFailed(operation: operation, path: path, underlying: error)
        }
    }

    /// Creates `folder` and its parents, private to the user.
    static func makeDirectory(_ folder: URL) throws {
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// `rename(2)`: atomically replaces `destination` (retried on `EINTR`).
    static func rename(_ source: String, to destination: String) throws {
        _ = try ItemVersionLock.retrying("rename", destination) { Glibc.rename(source, destination) }
    }

    /// This computer's host name (`gethostname`), read once.
    static let hostName: String? = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }()
}
