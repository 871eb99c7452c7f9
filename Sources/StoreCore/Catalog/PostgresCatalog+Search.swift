import Foundation
import Logging
import PostgresNIO

/// The full-text index in the cluster's PostgreSQL: a `tsvector` per page (`quire_search_pages.tsv`, the 'simple'
/// configuration) under a GIN index, queries by `to_tsquery` of the text ``SearchQuery/tsqueryText`` writes,
/// ranked by `ts_rank`, snippets by `ts_headline`.
extension PostgresCatalog {
    /// The options of `ts_headline`: matches between the hits' marks, one fragment of a sentence or two.
    private static let headlineOptions =
        "StartSel=\(SearchHit.markStart), StopSel=\(SearchHit.markEnd), MaxWords=30, MinWords=12, MaxFragments=1, "
        + "FragmentDelimiter=…"

    /// Replaces what the index holds of `entry.id`, unless it holds a later version or the document left the
    /// catalog (or is deleted).
    /// - Returns: Whether the entry was written.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    @discardableResult
    public func index(_ entry: IndexedDocument) async throws -> Bool {
        let id = entry.id.rawValue
        var rows = entry.pages.filter { !$0.text.isEmpty }.map { (Int32($0.number), $0.label, $0.text) }
        if let metadata = entry.metadataText { rows.insert((0, nil, metadata), at: 0) }
        let pages = rows
        let bytes = Int64(rows.reduce(0) { $0 + $1.2.utf8.count })
        let now = Date().catalogMilliseconds
        return try await transaction("index document \(entry.id)") { connection, logger in
            // The document's row, locked: a delete waits for this entry, and removes it.
            var state: String?
            for try await value in try await connection.query(
                "SELECT state FROM quire_documents WHERE id = \(id) FOR SHARE", logger: logger
            ).decode(String.self) {
                state = value
            }
            guard let state, state != DocumentState.Name.deleted.rawValue else { return false }
            var indexed: Int64?
            for try await value in try await connection.query(
                "SELECT version FROM quire_search_documents WHERE document_id = \(id) FOR UPDATE", logger: logger
            ).decode(Int64.self) {
                indexed = value
            }
            if let indexed, indexed > entry.version { return false }
            try await connection.query(
                """
                INSERT INTO quire_search_documents (document_id, version, status, pages, text_bytes, indexed_at)
                VALUES (\(id), \(entry.version), \(entry.status.rawValue), \(Int64(pages.count)), \(bytes), \(now))
                ON CONFLICT (document_id) DO UPDATE SET version = EXCLUDED.version, status = EXCLUDED.status,
                    pages = EXCLUDED.pages, text_bytes = EXCLUDED.text_bytes, indexed_at = EXCLUDED.indexed_at
                """, logger: logger)
            try await connection.query("DELETE FROM quire_search_pages WHERE document_id = \(id)", logger: logger)
            // One statement per 200 pages (each page three binds).
            var start = 0
            while start < pages.count {
                let chunk = pages[start..<min(pages.count, start + 200)]
                var query: PostgresQuery = "INSERT INTO quire_search_pages (document_id, page, label, body) VALUES "
                query.binds.append(id)
                var values: [String] = []
                for (page, label, text) in chunk {
                    let base = query.binds.count
                    values.append("($1, $\(base + 1), $\(base + 2), $\(base + 3))")
                    query.binds.append(page)
                    query.binds.append(label)
                    query.binds.append(text)
                }
                query.sql += values.joined(separator: ", ")
                try await connection.query(query, logger: logger)
                start += chunk.count
            }
            return true
        }
    }

    /// Removes what the index holds of document `id`.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func removeFromIndex(_ id: DocumentID) async throws {
        let client = client
        let logger = logger
        try await naming("remove document \(id) from the index") {
            _ = try await client.query(
                "DELETE FROM quire_search_documents WHERE document_id = \(id.rawValue)", logger: logger)
        }
    }

    /// The version the index reflects of each of these documents it holds.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func indexedVersions(of ids: [DocumentID]) async throws -> [DocumentID: Int64] {
        guard !ids.isEmpty else { return [:] }
        let client = client
        let logger = logger
        let keys = ids.map(\.rawValue)
        return try await naming("read the indexed versions of \(ids.count) documents") {
            var versions: [DocumentID: Int64] = [:]
            for try await row in try await client.query(
                "SELECT document_id, version FROM quire_search_documents WHERE document_id = ANY(\(keys))",
                logger: logger
            ).decode((String, Int64).self) {
                if let id = DocumentID(rawValue: row.0) { versions[id] = row.1 }
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
        let records = try await documents(
            where: """
                WHERE id = ANY(\(ids)) AND NOT EXISTS (
                    SELECT 1 FROM quire_search_documents s
                    WHERE s.document_id = quire_documents.id AND s.version = quire_documents.version)
                    AND (state <> 'deleted' OR EXISTS (
                        SELECT 1 FROM quire_search_documents s WHERE s.document_id = quire_documents.id))
                ORDER BY created_at, id COLLATE "C"
                """, operation: "find the documents the index does not reflect")
        return (records, walked.count < max(1, limit) ? nil : last.position)
    }

    /// At most `request.limit` matching pages, best first, after `request.after`.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func search(_ request: SearchRequest) async throws -> [SearchHit] {
        var query: PostgresQuery = """
            SELECT m.document_id, m.page, m.label, m.version, m.title, m.score,
                ts_headline('simple', p.body, to_tsquery('simple', $1), $2)
            FROM (
                SELECT p.document_id, p.page, p.label, s.version, d.title,
                    (-ts_rank(p.tsv, to_tsquery('simple', $1)))::float8 AS score
                FROM quire_search_pages p
                JOIN quire_search_documents s ON s.document_id = p.document_id
                JOIN quire_documents d ON d.id = p.document_id
                WHERE p.tsv @@ to_tsquery('simple', $1)
            """
        query.binds.append(request.query.tsqueryText)
        query.binds.append(Self.headlineOptions)
        if !request.states.isEmpty {
            query.sql += " AND d.state = ANY($\(query.binds.count + 1))"
            query.binds.append(request.states.sorted().map(\.rawValue))
        }
        if let document = request.document {
            query.sql += " AND p.document_id = $\(query.binds.count + 1)"
            query.binds.append(document.rawValue)
        }
        query.sql += ") m JOIN quire_search_pages p ON p.document_id = m.document_id AND p.page = m.page"
        if let after = request.after {
            let base = query.binds.count
            query.sql += " WHERE (m.score, m.document_id COLLATE \"C\", m.page)"
            query.sql += " > ($\(base + 1)::float8, $\(base + 2), $\(base + 3))"
            query.binds.append(after.score)
            query.binds.append(after.documentID)
            query.binds.append(Int32(clamping: after.page))
        }
        query.sql += " ORDER BY m.score, m.document_id COLLATE \"C\", m.page LIMIT $\(query.binds.count + 1)"
        query.binds.append(Int64(max(1, min(request.limit, SearchRequest.maximumLimit + 1))))
        let client = client
        let logger = logger
        let built = query
        return try await naming("search the index") {
            var hits: [SearchHit] = []
            for try await row in try await client.query(built, logger: logger)
                .decode((String, Int32, String?, Int64, String?, Double, String).self)
            {
                guard let id = DocumentID(rawValue: row.0) else { continue }
                let page = Int(row.1)
                hits.append(
                    SearchHit(
                        documentID: id, title: row.4, page: page == 0 ? nil : page, label: row.2, snippet: row.6,
                        version: row.3, position: SearchPosition(score: row.5, documentID: row.0, page: page)))
            }
            return hits
        }
    }

    /// How many documents and pages the index holds, and the bytes of their text.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func indexStatistics() async throws -> SearchIndexStatistics {
        let client = client
        let logger = logger
        return try await naming("count the index") {
            var statistics = SearchIndexStatistics(documents: 0, pages: 0, textBytes: 0)
            for try await row in try await client.query(
                """
                SELECT count(*), coalesce(sum(pages), 0)::bigint, coalesce(sum(text_bytes), 0)::bigint
                FROM quire_search_documents
                """, logger: logger
            ).decode((Int64, Int64, Int64).self) {
                statistics = SearchIndexStatistics(documents: Int(row.0), pages: Int(row.1), textBytes: Int(row.2))
            }
            return statistics
        }
    }
}
