import Foundation

/// The metadata of one stored version: the small JSON file `<id>.json` in its item's folder, whose contents are
/// `contents/<id>.<extension>` there.
struct FileVersionRecord: Codable, Sendable, Equatable {
    /// The version's identifier: a UUID string, also the stem of its two files in the store.
    var id: String
    /// The absolute, standardized path of the item when the version was added (the item may have moved since).
    var originalPath: String
    /// The name of the item's folder in the store (``ItemIdentity/folderName``, or the path's folder for a version
    /// kept by path); nil in records of stores that kept every version by path.
    var itemKey: String?
    /// The modification date of the contents when the version was added.
    var modificationDate: Date
    /// The name shown for the version (the item's file name).
    var localizedName: String
    /// The host name of the computer that added the version.
    var savingComputer: String?
    /// Whether the version is a conflict version.
    var isConflict: Bool
    /// Whether a conflict version has been resolved (always true for other versions).
    var isResolved: Bool
    /// Whether the version may be removed by the system when space is needed.
    var isDiscardable: Bool

    /// The largest metadata file read; anything bigger is not a record Quire wrote.
    static let sizeLimit = 64 * 1024

    /// Whether `text` can be a version identifier: a UUID (hex digits and dashes, 36 characters), so that a
    /// name read from the store or given by a caller never escapes the item's folder.
    static func isValidIdentifier(_ text: String) -> Bool {
        text.utf8.count == 36 && UUID(uuidString: text) != nil
            && text.utf8.allSatisfy {
                ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 70) || ($0 >= 97 && $0 <= 102) || $0 == 45
            }
    }

    /// Decodes a record from `data`, or nil when the bytes are not a well-formed record named `id` of the item
    /// whose folder is `key`: a record of an identity's folder names that folder; one kept by path (no
    /// `itemKey`, or the path's folder) names `path`.
    static func decode(_ data: Data, id: String, key: FileVersionStore.ItemKey) -> FileVersionRecord? {
        guard data.count <= sizeLimit else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let record = try? decoder.decode(FileVersionRecord.self, from: data), record.id == id else { return nil }
        switch key {
        case .identity(let folder):
            guard record.itemKey == folder else { return nil }
        case .path(let path):
            guard record.originalPath == path,
                record.itemKey == nil || record.itemKey == FileVersionStore.pathFolderName(path)
            else { return nil }
        }
        return record
    }

    /// The record as JSON.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }
}
