import Foundation
import GRDB

/// An entry of the persisted event log: something that happened to a document, with an id that only grows,
/// across restarts too, so that a client can resume from the last id it saw (`Last-Event-ID`).
public struct StoreEvent: Sendable, Hashable {
    /// RFC 3339 in UTC with milliseconds (`2026-11-23T04:35:00.123Z`): how events and documents show their times.
    package static let timestampFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// What happened.
    public enum EventType: String, Sendable, Hashable, CaseIterable {
        /// The document entered the store.
        case created
        /// The document's content changed (and it reloaded, if it was clean).
        case changed
        /// A file of the document moved; `extra` has `from` and `to`.
        case moved
        /// The document, or a file of it, was deleted.
        case deleted
        /// The document is in conflict; `extra` has `conflict` (`deletion` or `modification`).
        case conflict
        /// A conflict was resolved; `extra` has `resolution` (`reload`, `save` or `close`).
        case resolved
        /// The document's edits were saved to its files.
        case saved
        /// A file of the document stopped being a readable PDF (state `damaged`); `extra` has `file` and
        /// `reason`. A `changed` event follows when it is one again.
        case damaged
    }

    /// The event's id, given by the log when the event is appended; nil before.
    public var id: Int64?
    /// What happened.
    public var type: EventType
    /// The document it happened to.
    public var documentID: DocumentID
    /// The document's entity tag (of its content) after the event, when it has one.
    public var etag: EntityTag?
    /// The document's version after the event (``DocumentRecord/version``), given by the catalog as it records
    /// the event; nil before, and for events recorded before versions existed.
    public var version: Int64?
    /// When it happened (kept to the millisecond).
    public var at: Date { didSet { at = at.roundedToCatalogPrecision } }
    /// Type-specific fields, sent as extra members of the event's JSON (names other than `id`, `type`,
    /// `document`, `etag` and `at`).
    public var extra: [String: String]
    /// The cluster node that recorded the event (its ``NodeMembership/id``), so that each node tells its own
    /// events from the others' by the log alone; nil in the embedded catalog, and in events of a node that did not
    /// say. Not part of the event's JSON.
    public var node: String?

    /// Makes an event to append (its id is nil until the log gives it one).
    public init(
        type: EventType, documentID: DocumentID, etag: EntityTag? = nil, at: Date = Date(),
        extra: [String: String] = [:], node: String? = nil
    ) {
        self.id = nil
        self.version = nil
        self.type = type
        self.documentID = documentID
        self.etag = etag
        self.at = at.roundedToCatalogPrecision
        self.extra = extra
        self.node = node
    }
}

extension StoreEvent: FetchableRecord, MutablePersistableRecord {
    /// The catalog's event log table.
    public static let databaseTableName = "events"

    /// The table's columns (see `CatalogSchema`).
    enum ColumnNames {
        static let id = Column("id")
        static let type = Column("type")
        static let documentID = Column("documentId")
        static let etag = Column("etag")
        static let at = Column("at")
        static let extra = Column("extra")
        static let version = Column("version")
    }

    /// Reads an event from a row of `events`.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)`` when a column holds what this version never
    ///   writes.
    public init(row: Row) throws {
        self = try CatalogColumns.Event(
            type: row[ColumnNames.type], documentID: row[ColumnNames.documentID], etag: row[ColumnNames.etag],
            at: row[ColumnNames.at], extra: row[ColumnNames.extra], version: row[ColumnNames.version]
        ).event(id: row[ColumnNames.id], table: Self.databaseTableName)
    }

    /// Writes the event's columns; `extra` as a JSON object of strings.
    public func encode(to container: inout PersistenceContainer) throws {
        let columns = CatalogColumns.Event(self)
        container[ColumnNames.id] = id
        container[ColumnNames.type] = columns.type
        container[ColumnNames.documentID] = columns.documentID
        container[ColumnNames.etag] = columns.etag
        container[ColumnNames.at] = columns.at
        container[ColumnNames.extra] = columns.extra
        container[ColumnNames.version] = version
    }

    /// Takes the id the log gave the event.
    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension StoreEvent {
    /// The document's validator after the event (``DocumentRecord/validator``), when the event has a tag and a
    /// version.
    public var validator: EntityTag? {
        guard let etag, let version else { return etag }
        return EntityTag(content: etag, version: version)
    }
}
