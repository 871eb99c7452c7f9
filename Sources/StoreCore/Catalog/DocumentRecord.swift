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
    /// The document's version: 1 when it enters the store, and one more with every change the catalog records of
    /// it (content, unsaved edits, state, files, each event). The catalog gives it: what a caller sets is ignored
    /// by ``DocumentCatalog/insert(_:recording:)`` and ``DocumentCatalog/update(_:recording:)``.
    public var version: Int64
    /// When the document entered the store (kept to the millisecond).
    public var createdAt: Date { didSet { createdAt = createdAt.roundedToCatalogPrecision } }
    /// When the entry last changed (kept to the millisecond).
    public var updatedAt: Date { didSet { updatedAt = updatedAt.roundedToCatalogPrecision } }

    /// Makes an entry.
    public init(
        id: DocumentID, files: [String], origin: Origin, title: String? = nil, pageCount: Int, size: Int,
        etag: EntityTag, state: DocumentState = .clean, version: Int64 = 1, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.files = files
        self.origin = origin
        self.title = title
        self.pageCount = pageCount
        self.size = size
        self.etag = etag
        self.state = state
        self.version = version
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
        static let version = Column("version")
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
        self = try CatalogColumns.Document(
            id: row[ColumnNames.id], files: row[ColumnNames.files], origin: row[ColumnNames.origin],
            title: row[ColumnNames.title], pageCount: row[ColumnNames.pageCount], size: row[ColumnNames.size],
            etag: row[ColumnNames.etag], state: row[ColumnNames.state], conflictType: row[ColumnNames.conflictType],
            version: row[ColumnNames.version], createdAt: row[ColumnNames.createdAt], updatedAt: row[ColumnNames.updatedAt]
        ).record(table: Self.databaseTableName)
    }

    /// Writes the entry's columns; `files` as a JSON array of strings.
    public func encode(to container: inout PersistenceContainer) throws {
        let columns = CatalogColumns.Document(self)
        container[ColumnNames.id] = columns.id
        container[ColumnNames.files] = columns.files
        container[ColumnNames.origin] = columns.origin
        container[ColumnNames.title] = columns.title
        container[ColumnNames.pageCount] = columns.pageCount
        container[ColumnNames.size] = columns.size
        container[ColumnNames.etag] = columns.etag
        container[ColumnNames.state] = columns.state
        container[ColumnNames.conflictType] = columns.conflictType
        container[ColumnNames.version] = columns.version
        container[ColumnNames.createdAt] = columns.createdAt
        container[ColumnNames.updatedAt] = columns.updatedAt
    }
}

extension DocumentRecord {
    /// The document's validator: the tag of its content and its version (`"<sha256>-<version>"`), which changes
    /// with every change of the document, unsaved edits included. What its info is tagged with and what every
    /// write names in its ``WritePrecondition``; the same on every node of a cluster.
    public var validator: EntityTag { EntityTag(content: etag, version: version) }
}
