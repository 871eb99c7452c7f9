import Foundation

/// The columns of a catalog row as every engine stores them (text, integers, milliseconds since 1970, JSON text),
/// and their checked conversion to records: one place that decides what a row may hold, for SQLite and PostgreSQL.
enum CatalogColumns {
    /// A document's columns in table order.
    struct Document {
        var id: String
        var files: String
        var origin: String
        var title: String?
        var pageCount: Int64
        var size: Int64
        var etag: String
        var state: String
        var conflictType: String?
        var version: Int64
        var createdAt: Int64
        var updatedAt: Int64

        /// The columns of `record`.
        init(_ record: DocumentRecord) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            id = record.id.rawValue
            files = String(decoding: (try? encoder.encode(record.files)) ?? Data("[]".utf8), as: UTF8.self)
            origin = record.origin.rawValue
            title = record.title
            pageCount = Int64(record.pageCount)
            size = Int64(record.size)
            etag = record.etag.opaqueTag
            state = record.state.name
            conflictType = record.state.conflictType?.rawValue
            version = record.version
            createdAt = record.createdAt.catalogMilliseconds
            updatedAt = record.updatedAt.catalogMilliseconds
        }

        /// Columns read from a row.
        init(
            id: String, files: String, origin: String, title: String?, pageCount: Int64, size: Int64, etag: String,
            state: String, conflictType: String?, version: Int64, createdAt: Int64, updatedAt: Int64
        ) {
            self.id = id
            self.files = files
            self.origin = origin
            self.title = title
            self.pageCount = pageCount
            self.size = size
            self.etag = etag
            self.state = state
            self.conflictType = conflictType
            self.version = version
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }

        /// The record these columns hold.
        /// - Throws: ``CatalogError/corruptRow(table:column:value:)`` naming the first column that holds what this
        ///   version never writes.
        func record(table: String) throws(CatalogError) -> DocumentRecord {
            func corrupt(_ column: String, _ value: String) -> CatalogError {
                .corruptRow(table: table, column: column, value: value)
            }
            guard let documentID = DocumentID(rawValue: id) else { throw corrupt("id", id) }
            guard let paths = try? JSONDecoder().decode([String].self, from: Data(files.utf8)) else {
                throw corrupt("files", files)
            }
            guard let origin = DocumentRecord.Origin(rawValue: origin) else { throw corrupt("origin", self.origin) }
            guard let tag = EntityTag(opaqueTag: etag) else { throw corrupt("etag", etag) }
            let conflict = conflictType.flatMap(DocumentState.ConflictType.init(rawValue:))
            guard conflictType == nil || conflict != nil,
                let documentState = DocumentState(name: state, conflictType: conflict)
            else { throw corrupt("state", "\(state)/\(conflictType ?? "null")") }
            guard pageCount >= 0, pageCount <= Int64(Int32.max) else { throw corrupt("pageCount", "\(pageCount)") }
            guard size >= 0 else { throw corrupt("size", "\(size)") }
            guard version >= 1 else { throw corrupt("version", "\(version)") }
            return DocumentRecord(
                id: documentID, files: paths, origin: origin, title: title, pageCount: Int(pageCount),
                size: Int(size), etag: tag, state: documentState, version: version,
                createdAt: Date(catalogMilliseconds: createdAt), updatedAt: Date(catalogMilliseconds: updatedAt))
        }
    }

    /// An event's columns in table order (the id apart: the log gives it).
    struct Event {
        var type: String
        var documentID: String
        var etag: String?
        var at: Int64
        var extra: String
        var version: Int64?
        /// The recording node (PostgreSQL's log only: one node writes the embedded catalog).
        var node: String?

        /// The columns of `event`.
        init(_ event: StoreEvent) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            type = event.type.rawValue
            documentID = event.documentID.rawValue
            etag = event.etag?.opaqueTag
            at = event.at.catalogMilliseconds
            extra = String(decoding: (try? encoder.encode(event.extra)) ?? Data("{}".utf8), as: UTF8.self)
            version = event.version
            node = event.node
        }

        /// Columns read from a row.
        init(
            type: String, documentID: String, etag: String?, at: Int64, extra: String, version: Int64?,
            node: String? = nil
        ) {
            self.type = type
            self.documentID = documentID
            self.etag = etag
            self.at = at
            self.extra = extra
            self.version = version
            self.node = node
        }

        /// The event these columns hold, with `id`.
        /// - Throws: ``CatalogError/corruptRow(table:column:value:)`` naming the first column that holds what this
        ///   version never writes.
        func event(id: Int64, table: String) throws(CatalogError) -> StoreEvent {
            func corrupt(_ column: String, _ value: String) -> CatalogError {
                .corruptRow(table: table, column: column, value: value)
            }
            guard let eventType = StoreEvent.EventType(rawValue: type) else { throw corrupt("type", type) }
            guard let document = DocumentID(rawValue: documentID) else { throw corrupt("documentId", documentID) }
            let tag = etag.flatMap { EntityTag(opaqueTag: $0) }
            if let etag, tag == nil { throw corrupt("etag", etag) }
            guard let fields = try? JSONDecoder().decode([String: String].self, from: Data(extra.utf8)) else {
                throw corrupt("extra", extra)
            }
            var event = StoreEvent(
                type: eventType, documentID: document, etag: tag, at: Date(catalogMilliseconds: at), extra: fields)
            event.id = id
            event.version = version
            event.node = node
            return event
        }
    }
}
