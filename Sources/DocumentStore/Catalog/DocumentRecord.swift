import Foundation
import GRDB

/// A document's entry in the catalog: what the store lists and reports without opening the PDF.
public struct DocumentRecord: Sendable, Hashable {
    /// How the document came into the store.
    public enum Origin: String, Sendable, Hashable, CaseIterable {
        /// Uploaded: its one file lives in the store directory, and deleting the document deletes the file.
        case upload
        /// Registered by path: its files live under configured roots and belong to their owners.
        case registered
    }

    /// The document's identifier.
    public var id: DocumentID
    /// The absolute paths of the document's files, in page order (pages of the first file come first).
    public var files: [String]
    /// How the document came into the store.
    public var origin: Origin
    /// The title from the PDF's metadata, if it has one.
    public var title: String?
    /// The number of pages of all files together.
    public var pageCount: Int
    /// The size in bytes of all files together.
    public var size: Int
    /// The strong entity tag of the document's content (``EntityTag/init(combining:)`` of its files' tags).
    public var etag: EntityTag
    /// Whether the document matches its files, has edits, is in conflict or is gone.
    public var state: DocumentState
    /// When the document entered the store (kept to the millisecond).
    public var createdAt: Date { didSet { createdAt = createdAt.roundedToCatalogPrecision } }
    /// When the entry last changed (kept to the millisecond).
    public var updatedAt: Date { didSet { updatedAt = updatedAt.roundedToCatalogPrecision } }

    /// Makes an entry.
    public init(
        id: DocumentID, files: [String], origin: Origin, title: String? = nil, pageCount: Int, size: Int,
        etag: EntityTag, state: DocumentState = .clean, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.files = files
        self.origin = origin
        self.title = title
        self.pageCount = pageCount
        self.size = size
        self.etag = etag
        self.state = state
        self.createdAt = createdAt.roundedToCatalogPrecision
        self.updatedAt = updatedAt.roundedToCatalogPrecision
    }
}

extension DocumentRecord: FetchableRecord, PersistableRecord {
    /// The catalog's table of documents.
    public static let databaseTableName = "documents"

    /// The table's columns (see `CatalogSchema`).
    enum ColumnNames {
        static let id = Column("id")
        static let files = Column("files")
        static let origin = Column("origin")
        static let title = Column("title")
        static let pageCount = Column("pageCount")
        static let size = Column("size")
        static let etag = Column("etag")
        static let state = Column("state")
        static let conflictType = Column("conflictType")
        static let createdAt = Column("createdAt")
        static let updatedAt = Column("updatedAt")
    }

    /// Reads an entry from a row of `documents`.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)`` when a column holds what this version never
    ///   writes (an invalid id, an unknown state).
    public init(row: Row) throws {
        func corrupt(_ column: Column, _ value: String) -> CatalogError {
            .corruptRow(table: Self.databaseTableName, column: column.name, value: value)
        }
        let idText: String = row[ColumnNames.id]
        guard let id = DocumentID(rawValue: idText) else { throw corrupt(ColumnNames.id, idText) }
        let filesText: String = row[ColumnNames.files]
        guard let files = try? JSONDecoder().decode([String].self, from: Data(filesText.utf8)) else {
            throw corrupt(ColumnNames.files, filesText)
        }
        let originText: String = row[ColumnNames.origin]
        guard let origin = Origin(rawValue: originText) else { throw corrupt(ColumnNames.origin, originText) }
        let etagText: String = row[ColumnNames.etag]
        guard let etag = EntityTag(opaqueTag: etagText) else { throw corrupt(ColumnNames.etag, etagText) }
        let stateText: String = row[ColumnNames.state]
        let conflictText: String? = row[ColumnNames.conflictType]
        let conflictType = conflictText.flatMap(DocumentState.ConflictType.init(rawValue:))
        guard conflictText == nil || conflictType != nil,
            let state = DocumentState(name: stateText, conflictType: conflictType)
        else { throw corrupt(ColumnNames.state, "\(stateText)/\(conflictText ?? "null")") }
        self.init(
            id: id, files: files, origin: origin, title: row[ColumnNames.title], pageCount: row[ColumnNames.pageCount],
            size: row[ColumnNames.size], etag: etag, state: state,
            createdAt: Date(catalogMilliseconds: row[ColumnNames.createdAt]),
            updatedAt: Date(catalogMilliseconds: row[ColumnNames.updatedAt]))
    }

    /// Writes the entry's columns; `files` as a JSON array of strings.
    public func encode(to container: inout PersistenceContainer) throws {
        container[ColumnNames.id] = id.rawValue
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        container[ColumnNames.files] = String(decoding: try encoder.encode(files), as: UTF8.self)
        container[ColumnNames.origin] = origin.rawValue
        container[ColumnNames.title] = title
        container[ColumnNames.pageCount] = pageCount
        container[ColumnNames.size] = size
        container[ColumnNames.etag] = etag.opaqueTag
        container[ColumnNames.state] = state.name
        container[ColumnNames.conflictType] = state.conflictType?.rawValue
        container[ColumnNames.createdAt] = createdAt.catalogMilliseconds
        container[ColumnNames.updatedAt] = updatedAt.catalogMilliseconds
    }
}
