import Foundation
import GRDB

/// The full-text index in the catalog's SQLite database: FTS5 (`search_text`) over the pages' text
/// (`search_pages`), ranked by `bm25()`, snippets by `snippet()`. Its rows are keyed by the document's rowid in
/// `documents` (schema v7, ``CatalogSchema``).
extension Catalog {
    /// Replaces what the index holds of `entry.id`, unless it holds a later version or the document left the
    /// catalog (or is deleted).
    /// - Returns: Whether the entry was written.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    @discardableResult
    public func index(_ entry: IndexedDocument) async throws -> Bool {
        try await write("index document \(entry.id)") { db in
            guard
                let key = try Int64.fetchOne(
                    db, sql: "SELECT rowid FROM documents WHERE id = ? AND state <> ?",
                    arguments: [entry.id.rawValue, DocumentState.Name.deleted.rawValue])
            else { return false }
            if let indexed = try Int64.fetchOne(
                db, sql: "SELECT version FROM search_documents WHERE document = ?", arguments: [key]),
                indexed > entry.version
            {
                return false
            }
            // Its pages leave with its row; the new ones take consecutive ids after the last, and go into FTS5 when
            // its new row is written (the triggers of schema v7).
            try db.execute(sql: "DELETE FROM search_documents WHERE document = ?", arguments: [key])
            let first = try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) + 1 FROM search_pages") ?? 1
            var rows = entry.pages.filter { !$0.text.isEmpty }.map { ($0.number, $0.label, $0.text) }
            if let metadata = entry.metadataText { rows.insert((0, nil, metadata), at: 0) }
            let insert = try db.makeStatement(
                sql: "INSERT INTO search_pages (id, document, page, label, body) VALUES (?, ?, ?, ?, ?)")
            for (offset, (page, label, text)) in rows.enumerated() {
                try insert.execute(arguments: [first + Int64(offset), key, page, label, text])
            }
            try db.execute(
                sql: "INSERT INTO search_documents (document, version, status, firstRow, pages) VALUES (?, ?, ?, ?, ?)",
                arguments: [key, entry.version, entry.status.catalogCode, rows.isEmpty ? 0 : first, rows.count])
            return true
        }
    }

    /// Removes what the index holds of document `id`.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func removeFromIndex(_ id: DocumentID) async throws {
        try await write("remove document \(id) from the index") { db in
            try db.execute(
                sql: "DELETE FROM search_documents WHERE document = (SELECT rowid FROM documents WHERE id = ?)",
                arguments: [id.rawValue])
        }
    }

    /// The version the index reflects of each of these documents it holds.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func indexedVersions(of ids: [DocumentID]) async throws -> [DocumentID: Int64] {
        guard !ids.isEmpty else { return [:] }
        return try await read("read the indexed versions of \(ids.count) documents") { db in
            var versions: [DocumentID: Int64] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id, s.version FROM documents d JOIN search_documents s ON s.document = d.rowid
                    WHERE d.id IN (\(Self.marks(ids.count)))
                    """,
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
        let walked = try await listingKeys(state: nil, after: position, limit: max(1, limit))
        guard let last = walked.last else { return ([], nil) }
        let ids = walked.map(\.position.id)
        let records = try await read("find the documents the index does not reflect") { db in
            try DocumentRecord.fetchAll(
                db,
                sql: """
                    SELECT d.* FROM documents d LEFT JOIN search_documents s ON s.document = d.rowid
                    WHERE d.id IN (\(Self.marks(ids.count))) AND (s.version IS NULL OR s.version <> d.version)
                        AND NOT (d.state = 'deleted' AND s.document IS NULL)
                    ORDER BY d.createdAt, d.id
                    """, arguments: StatementArguments(ids))
        }
        return (records, walked.count < max(1, limit) ? nil : last.position)
    }

    /// At most `request.limit` matching pages, best first, after `request.after`.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func search(_ request: SearchRequest) async throws -> [SearchHit] {
        let expression = request.query.fts5Expression
        return try await read("search the index") { db in
            var conditions: [String] = []
            var arguments: StatementArguments = [expression]
            if !request.states.isEmpty {
                conditions.append("d.state IN (\(Self.marks(request.states.count)))")
                arguments += StatementArguments(request.states.sorted().map(\.rawValue))
            }
            if let document = request.document {
                conditions.append("d.id = ?")
                arguments += [document.rawValue]
            }
            if let after = request.after {
                conditions.append("(r.score, d.id, p.page) > (?, ?, ?)")
                arguments += [after.score, after.documentID, after.page]
            }
            arguments += [max(1, min(request.limit, SearchRequest.maximumLimit + 1))]
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT p.id, d.id, p.page, p.label, r.score, s.version, d.title
                    FROM (SELECT rowid, bm25(search_text) AS score FROM search_text WHERE search_text MATCH ?) r
                    JOIN search_pages p ON p.id = r.rowid
                    JOIN search_documents s ON s.document = p.document
                    JOIN documents d ON d.rowid = p.document
                    \(filter)
                    ORDER BY r.score, d.id, p.page LIMIT ?
                    """, arguments: arguments)
            guard !rows.isEmpty else { return [] }
            var snippets: [Int64: String] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT rowid, snippet(search_text, 0, ?, ?, '…', 24) FROM search_text
                    WHERE search_text MATCH ? AND rowid IN (\(Self.marks(rows.count)))
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
            let documents = try Int.fetchOne(db, sql: "SELECT count(*) FROM search_documents") ?? 0
            let pages = try Row.fetchOne(
                db, sql: "SELECT count(*), coalesce(sum(length(CAST(body AS BLOB))), 0) FROM search_pages")
            return SearchIndexStatistics(documents: documents, pages: pages?[0] ?? 0, textBytes: pages?[1] ?? 0)
        }
    }

    /// `count` SQL parameters, for `IN (…)`.
    private static func marks(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}

extension IndexedDocument.Status {
    /// The status as the SQLite index stores it (schema v7: 0 text, 1 encrypted, 2 damaged, 3 failed).
    var catalogCode: Int {
        switch self {
        case .text: 0
        case .encrypted: 1
        case .damaged: 2
        case .failed: 3
        }
    }
}
