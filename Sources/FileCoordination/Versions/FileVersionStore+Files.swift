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

    /// The item's folder: `items/` and a 64-bit FNV-1a hash of its path (records carry the path, so two paths
    /// that share a hash never see each other's versions).
    func itemFolder(forPath path: String) -> URL {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        let name = String(repeating: "0", count: 16 - hex.count) + hex
        return directory.appendingPathComponent("items", isDirectory: true).appendingPathComponent(
            name, isDirectory: true)
    }

    /// The contents of version `id` in `folder` (`id` is a validated UUID, so the name stays in `folder`).
    func dataURL(id: String, in folder: URL) -> URL {
        folder.appendingPathComponent(id + ".data")
    }

    /// A fresh name in the staging folder (created if needed).
    func stagingURL(_ name: String) throws -> URL {
        let staging = directory.appendingPathComponent("tmp", isDirectory: true)
        try perform("create", staging.path) { try Self.makeDirectory(staging) }
        return staging.appendingPathComponent("\(UUID().uuidString)-\(name)")
    }

    /// The record of version `id` of `path`, or nil when it is missing or not a record Quire wrote for it.
    func readRecord(id: String, path: String, in folder: URL) -> FileVersionRecord? {
        guard FileVersionRecord.isValidIdentifier(id),
            let handle = FileHandle(forReadingAtPath: folder.appendingPathComponent(id + ".json").path)
        else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: FileVersionRecord.sizeLimit + 1) else { return nil }
        return FileVersionRecord.decode(data, id: id, path: path)
    }

    /// Writes `record` to `<id>.json` in `folder` atomically (a staged file, then a rename).
    func writeRecord(_ record: FileVersionRecord, in folder: URL) throws {
        let staged = try stagingURL(record.id + ".json")
        let data = try perform("encode the metadata of", staged.path) { try record.encoded() }
        try perform("write", staged.path) { try data.write(to: staged) }
        try Self.rename(staged.path, to: folder.appendingPathComponent(record.id + ".json").path)
    }

    /// Removes version `id`'s metadata, then its contents; false when it had no metadata (already removed).
    func removeFiles(of id: String, path: String, in folder: URL) throws -> Bool {
        guard readRecord(id: id, path: path, in: folder) != nil else { return false }
        let metadata = folder.appendingPathComponent(id + ".json")
        try perform("remove", metadata.path) { try FileManager.default.removeItem(at: metadata) }
        try? FileManager.default.removeItem(at: dataURL(id: id, in: folder))
        return true
    }

    /// The ``FileVersion`` for a stored record.
    func version(from record: FileVersionRecord, item: URL, folder: URL) -> FileVersion {
        FileVersion(
            id: record.id, itemURL: item, url: dataURL(id: record.id, in: folder), isCurrent: false,
            modificationDate: record.modificationDate, localizedName: record.localizedName,
            savingComputerName: record.savingComputer, isConflict: record.isConflict, isResolved: record.isResolved,
            isDiscardable: record.isDiscardable, store: self)
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
