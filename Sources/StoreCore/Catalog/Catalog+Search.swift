import Foundation
import GRDB

/// The full-text index in the catalog's SQLite database: FTS5 (`search_text`) over the pages' text
/// (`search_pages`), ranked by `bm25()`, snippets by `snippet()`.
extension Catalog {
    /// Replaces what the index holds of `entry.id`, unless it holds a later version or the document left the
    /// catalog (or is deleted).
    /// - Returns: Whether the entry was written.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    @discardableResult
    public func index(_ entry: IndexedDocument) async throws -> Bool {
        try await write("index document \(entry.id)") { db in
            let id = entry.id.rawValue
            guard
                try String.fetchOne(db, sql: "SELECT state FROM documents WHERE id = ?", arguments: [id])
                    .map({ $0 != DocumentState.Name.deleted.rawValue }) == true
            else { return false }
            if let indexed = try Int64.fetchOne(
                db, sql: "SELECT version FROM search_documents WHERE documentId = ?", arguments: [id]),
                indexed > entry.version
            {
                return false
            }
            try db.execute(sql: "DELETE FROM search_pages WHERE documentId = ?", arguments: [id])
            var rows = entry.pages.filter { !$0.text.isEmpty }.map { ($0.number, $0.label, $0.text) }
            if let metadata = entry.metadataText { rows.insert((0, nil, metadata), at: 0) }
            let insert = try db.makeStatement(
                sql: "INSERT INTO search_pages (documentId, page, label, body) VALUES (?, ?, ?, ?)")
            var bytes = 0
            for (page, label, text) in rows {
                try insert.execute(arguments: [id, page, label, text])
                bytes += text.utf8.count
            }
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO search_documents (documentId, version, status, pages, textBytes, indexedAt)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, entry.version, entry.status.rawValue, rows.count, bytes, Date().catalogMilliseconds])
            return true
        }
    }

    /// Removes what the index holds of document `id`.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func removeFromIndex(_ id: DocumentID) async throws {
        try await write("remove document \(id) from the index") { db in
            try db.execute(sql: "DELETE FROM search_pages WHERE documentId = ?", arguments: [id.rawValue])
            try db.execute(sql: "DELETE FROM search_documents WHERE documentId = ?", arguments: [id.rawValue])
        }
    }

    /// The version the index reflects of each of these documents it holds.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func indexedVersions(of ids: [DocumentID]) async throws -> [DocumentID: Int64] {
        guard !ids.isEmpty else { return [:] }
        return try await read("read the indexed versions of \(ids.count) documents") { db in
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            var versions: [DocumentID: Int64] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT documentId, version FROM search_documents WHERE documentId IN (\(marks))",
                arguments: StatementArguments(ids.map(\.rawValue)))
            {
                if let id = DocumentID(rawValue: row[0]) { versions[id] = row[1] }
            }
            return versions
        }
    }

    /// At most `limit` catalog entries after `position` whose version the index does not reflect.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func documentsToIndex(after position: ListingPosition?, limit: Int) async throws
        -> (documents: [DocumentRecord], next: ListingPosition?)
    {
        try await read("find the documents the index does not reflect") { db in
            var arguments: StatementArguments = []
            var filter = ""
            if let position {
                filter = "WHERE (createdAt, id) > (?, ?)"
                arguments += [position.createdAt, position.id]
            }
            arguments += [max(1, limit)]
            let walked = try Row.fetchAll(
                db, sql: "SELECT createdAt, id FROM documents \(filter) ORDER BY createdAt, id LIMIT ?",
                arguments: arguments)
            guard let last = walked.last else { return ([], nil) }
            let ids = walked.map { $0[1] as String }
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            let records = try DocumentRecord.fetchAll(
                db,
                sql: """
                    SELECT d.* FROM documents d LEFT JOIN search_documents s ON s.documentId = d.id
                    WHERE d.id IN (\(marks)) AND (s.version IS NULL OR s.version <> d.version)
                        AND NOT (d.state = 'deleted' AND s.documentId IS NULL)
                    ORDER BY d.createdAt, d.id
                    """, arguments: StatementArguments(ids))
            let next = walked.count < max(1, limit) ? nil : ListingPosition(createdAt: last[0], id: last[1])
            return (records, next)
        }
    }

    /// At most `request.limit` matching pages, best first, after `request.after`.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func search(_ request: SearchRequest) async throws -> [SearchHit] {
        let expression = request.query.fts5Expression
        return try await read("search the index") { db in
            var conditions: [String] = []
            var arguments: StatementArguments = [expression]
            if !request.states.isEmpty {
                conditions.append(
                    "d.state IN (" + Array(repeating: "?", count: request.states.count).joined(separator: ", ") + ")")
                arguments += StatementArguments(request.states.sorted().map(\.rawValue))
            }
            if let document = request.document {
                conditions.append("p.documentId = ?")
                arguments += [document.rawValue]
            }
            if let after = request.after {
                conditions.append("(r.score, p.documentId, p.page) > (?, ?, ?)")
                arguments += [after.score, after.documentID, after.page]
            }
            arguments += [max(1, min(request.limit, SearchRequest.maximumLimit + 1))]
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT p.id, p.documentId, p.page, p.label, r.score, s.version, d.title
                    FROM (SELECT rowid, bm25(search_text) AS score FROM search_text WHERE search_text MATCH ?) r
                    JOIN search_pages p ON p.id = r.rowid
                    JOIN search_documents s ON s.documentId = p.documentId
                    JOIN documents d ON d.id = p.documentId
                    \(filter)
                    ORDER BY r.score, p.documentId, p.page LIMIT ?
                    """, arguments: arguments)
            guard !rows.isEmpty else { return [] }
            let marks = Array(repeating: "?", count: rows.count).joined(separator: ", ")
            var snippets: [Int64: String] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT rowid, snippet(search_text, 0, ?, ?, '…', 24) FROM search_text
                    WHERE search_text MATCH ? AND rowid IN (\(marks))
                    """,
                arguments: [SearchHit.markStart, SearchHit.markEnd, expression]
                    + StatementArguments(rows.map { $0[0] as Int64 }))
            {
                snippets[row[0]] = row[1]
            }
            return rows.compactMap { row -> SearchHit? in
                guard let id = DocumentID(rawValue: row[1]) else { return nil }
                let page: Int = row[2]
                let score: Double = row[4]
                return SearchHit(
                    documentID: id, title: row[6], page: page == 0 ? nil : page, label: row[3],
                    snippet: snippets[row[0]] ?? "", version: row[5],
                    position: SearchPosition(score: score, documentID: id.rawValue, page: page))
            }
        }
    }

    /// How many documents and pages the index holds, and the bytes of their text.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func indexStatistics() async throws -> SearchIndexStatistics {
        try await read("count the index") { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT count(*), coalesce(sum(pages), 0), coalesce(sum(textBytes), 0) FROM search_documents")
            return SearchIndexStatistics(documents: row?[0] ?? 0, pages: row?[1] ?? 0, textBytes: row?[2] ?? 0)
        }
    }
}
