import GRDB

/// The catalog's schema, as a list of migrations: each runs once per database, in order, and is never edited
/// after it shipped (a change is a new migration).
enum CatalogSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: documents and events") { db in
            try db.create(table: DocumentRecord.databaseTableName) { table in
                table.primaryKey("id", .text)
                table.column("files", .text).notNull()  // JSON array of absolute paths, in page order
                table.column("origin", .text).notNull().check(sql: "origin IN ('upload', 'registered')")
                table.column("title", .text)
                table.column("pageCount", .integer).notNull().check(sql: "pageCount >= 0")
                table.column("size", .integer).notNull().check(sql: "size >= 0")
                table.column("etag", .text).notNull()
                table.column("state", .text).notNull()
                    .check(sql: "state IN ('clean', 'dirty', 'conflict', 'deleted')")
                table.column("conflictType", .text).check(sql: "conflictType IN ('deletion', 'modification')")
                table.column("createdAt", .integer).notNull()  // Unix time in milliseconds
                table.column("updatedAt", .integer).notNull()
                // A conflict always has a type, and only a conflict has one.
                table.check(sql: "(state = 'conflict') = (conflictType IS NOT NULL)")
            }
            // AUTOINCREMENT: an id is never given twice, even after the newest events are deleted.
            try db.create(table: StoreEvent.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("type", .text).notNull()
                    .check(sql: "type IN ('created', 'changed', 'moved', 'deleted', 'conflict', 'resolved', 'saved')")
                table.column("documentId", .text).notNull()  // no foreign key: events outlive their documents
                table.column("etag", .text)
                table.column("at", .integer).notNull()  // Unix time in milliseconds
                table.column("extra", .text).notNull().defaults(to: "{}")  // JSON object of strings
            }
        }
        // SQLite cannot change a CHECK constraint: both tables are made anew with the wider ones and their rows
        // copied (event ids, and the sequence that gives them, kept).
        migrator.registerMigration("v2: the damaged state and event") { db in
            let documents = DocumentRecord.databaseTableName
            let events = StoreEvent.databaseTableName
            try db.create(table: documents + "_v2") { table in
                table.primaryKey("id", .text)
                table.column("files", .text).notNull()
                table.column("origin", .text).notNull().check(sql: "origin IN ('upload', 'registered')")
                table.column("title", .text)
                table.column("pageCount", .integer).notNull().check(sql: "pageCount >= 0")
                table.column("size", .integer).notNull().check(sql: "size >= 0")
                table.column("etag", .text).notNull()
                table.column("state", .text).notNull()
                    .check(sql: "state IN ('clean', 'dirty', 'conflict', 'deleted', 'damaged')")
                table.column("conflictType", .text).check(sql: "conflictType IN ('deletion', 'modification')")
                table.column("createdAt", .integer).notNull()
                table.column("updatedAt", .integer).notNull()
                table.check(sql: "(state = 'conflict') = (conflictType IS NOT NULL)")
            }
            try db.execute(sql: "INSERT INTO \(documents)_v2 SELECT * FROM \(documents)")
            try db.drop(table: documents)
            try db.rename(table: documents + "_v2", to: documents)
            let sequence =
                try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [events]) ?? 0
            try db.create(table: events + "_v2") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("type", .text).notNull()
                    .check(
                        sql:
                            "type IN ('created', 'changed', 'moved', 'deleted', 'conflict', 'resolved', 'saved', 'damaged')"
                    )
                table.column("documentId", .text).notNull()
                table.column("etag", .text)
                table.column("at", .integer).notNull()
                table.column("extra", .text).notNull().defaults(to: "{}")
            }
            try db.execute(sql: "INSERT INTO \(events)_v2 SELECT * FROM \(events)")
            try db.drop(table: events)
            try db.rename(table: events + "_v2", to: events)
            try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = ?", arguments: [events])
            try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", arguments: [events, sequence])
        }
        // Every change of a document has a version (1 when it enters the store, one more per change), and every
        // event names the version it left the document at (null for events from before).
        migrator.registerMigration("v3: document versions") { db in
            try db.alter(table: DocumentRecord.databaseTableName) { table in
                table.add(column: "version", .integer).notNull().defaults(to: 1).check(sql: "version >= 1")
            }
            try db.alter(table: StoreEvent.databaseTableName) { table in
                table.add(column: "version", .integer)
            }
        }
        // Listings walk these covering indexes, so that a page costs the same at a million documents as at ten:
        // the listing order, and the same within one state (`state=`).
        migrator.registerMigration("v4: listing indexes") { db in
            try db.execute(sql: "CREATE INDEX documents_listing ON documents (createdAt, id, updatedAt)")
            try db.execute(
                sql: "CREATE INDEX documents_state_listing ON documents (state, createdAt, id, updatedAt)")
        }
        // Which document holds a file, and which directories hold documents' files, without reading every row:
        // kept by triggers in the transaction that changes a document's files.
        migrator.registerMigration("v5: file and directory indexes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE document_files (
                        path TEXT NOT NULL, documentId TEXT NOT NULL, directory TEXT NOT NULL,
                        PRIMARY KEY (documentId, path)) WITHOUT ROWID;
                    CREATE INDEX document_files_path ON document_files (path);
                    CREATE TABLE document_directories (
                        directory TEXT PRIMARY KEY, files INTEGER NOT NULL CHECK (files >= 0)) WITHOUT ROWID;
                    CREATE TRIGGER document_files_added AFTER INSERT ON document_files BEGIN
                        INSERT INTO document_directories (directory, files) VALUES (NEW.directory, 1)
                            ON CONFLICT (directory) DO UPDATE SET files = files + 1;
                    END;
                    CREATE TRIGGER document_files_removed AFTER DELETE ON document_files BEGIN
                        UPDATE document_directories SET files = files - 1 WHERE directory = OLD.directory;
                        DELETE FROM document_directories WHERE directory = OLD.directory AND files = 0;
                    END;
                    CREATE TRIGGER documents_files_inserted AFTER INSERT ON documents BEGIN
                        INSERT OR IGNORE INTO document_files (path, documentId, directory)
                            SELECT value, NEW.id, rtrim(rtrim(value, replace(value, '/', '')), '/')
                            FROM json_each(NEW.files);
                    END;
                    CREATE TRIGGER documents_files_updated AFTER UPDATE OF files ON documents
                    WHEN OLD.files IS NOT NEW.files BEGIN
                        DELETE FROM document_files WHERE documentId = OLD.id;
                        INSERT OR IGNORE INTO document_files (path, documentId, directory)
                            SELECT value, NEW.id, rtrim(rtrim(value, replace(value, '/', '')), '/')
                            FROM json_each(NEW.files);
                    END;
                    CREATE TRIGGER documents_files_deleted AFTER DELETE ON documents BEGIN
                        DELETE FROM document_files WHERE documentId = OLD.id;
                    END;
                    INSERT OR IGNORE INTO document_files (path, documentId, directory)
                        SELECT json_each.value, documents.id,
                            rtrim(rtrim(json_each.value, replace(json_each.value, '/', '')), '/')
                        FROM documents, json_each(documents.files);
                    """)
        }
        // The full-text index (``SearchIndex``): per document, the version it reflects; per page with text (and
        // page 0, the metadata), its text in `search_pages`, indexed by the FTS5 table `search_text` over it (an
        // external-content table kept by triggers: the text is stored once). A document leaving the catalog
        // leaves the index in the same transaction.
        migrator.registerMigration("v6: search index") { db in
            try db.execute(
                sql: """
                    CREATE TABLE search_documents (
                        documentId TEXT PRIMARY KEY, version INTEGER NOT NULL,
                        status TEXT NOT NULL CHECK (status IN ('text', 'encrypted', 'damaged', 'failed')),
                        pages INTEGER NOT NULL, textBytes INTEGER NOT NULL, indexedAt INTEGER NOT NULL) WITHOUT ROWID;
                    CREATE TABLE search_pages (
                        id INTEGER PRIMARY KEY, documentId TEXT NOT NULL, page INTEGER NOT NULL, label TEXT,
                        body TEXT NOT NULL);
                    CREATE UNIQUE INDEX search_pages_document ON search_pages (documentId, page);
                    CREATE VIRTUAL TABLE search_text USING fts5(
                        body, content = 'search_pages', content_rowid = 'id',
                        tokenize = 'unicode61 remove_diacritics 0');
                    CREATE TRIGGER search_pages_added AFTER INSERT ON search_pages BEGIN
                        INSERT INTO search_text (rowid, body) VALUES (NEW.id, NEW.body);
                    END;
                    CREATE TRIGGER search_pages_removed AFTER DELETE ON search_pages BEGIN
                        INSERT INTO search_text (search_text, rowid, body) VALUES ('delete', OLD.id, OLD.body);
                    END;
                    CREATE TRIGGER documents_search_deleted AFTER DELETE ON documents BEGIN
                        DELETE FROM search_pages WHERE documentId = OLD.id;
                        DELETE FROM search_documents WHERE documentId = OLD.id;
                    END;
                    """)
        }
        // The search index at about half its v6 size (issue 31: what the index adds to its text at most 1.5 times
        // the text). Its rows are keyed by the document's rowid in `documents`, never again by the 16-character id
        // in every page row and its index (VACUUM keeps the rowids of a table with an index; a test holds it to
        // that). The status is a small integer (0 text, 1 encrypted, 2 damaged, 3 failed); the text's size is no
        // longer kept per document (``Catalog/indexStatistics()`` sums it). A document's pages have consecutive
        // ids from `firstRow` (`pages` of them), so no index over (document, page) is kept: a document's row is
        // written after its pages, and its triggers put that range of pages into FTS5, and take it out with the
        // pages when the row leaves. FTS5 keeps no per-page token counts (`columnsize=0`: `bm25()` counts the
        // tokens of the pages it ranks). The text moves over as it is; the FTS index is rebuilt from it.
        migrator.registerMigration("v7: compact search index") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER search_pages_added;
                    DROP TRIGGER search_pages_removed;
                    DROP TRIGGER documents_search_deleted;
                    DROP TABLE search_text;
                    DROP INDEX search_pages_document;
                    ALTER TABLE search_documents RENAME TO search_documents_v6;
                    ALTER TABLE search_pages RENAME TO search_pages_v6;
                    CREATE TABLE search_documents (
                        document INTEGER PRIMARY KEY, version INTEGER NOT NULL,
                        status INTEGER NOT NULL CHECK (status BETWEEN 0 AND 3),
                        firstRow INTEGER NOT NULL, pages INTEGER NOT NULL CHECK (pages >= 0));
                    CREATE TABLE search_pages (
                        id INTEGER PRIMARY KEY, document INTEGER NOT NULL, page INTEGER NOT NULL, label TEXT,
                        body TEXT NOT NULL);
                    INSERT INTO search_pages (document, page, label, body)
                        SELECT d.rowid, p.page, p.label, p.body
                        FROM search_pages_v6 p JOIN documents d ON d.id = p.documentId
                        ORDER BY d.rowid, p.page;
                    INSERT INTO search_documents (document, version, status, firstRow, pages)
                        SELECT d.rowid, s.version,
                            CASE s.status WHEN 'text' THEN 0 WHEN 'encrypted' THEN 1 WHEN 'damaged' THEN 2 ELSE 3 END,
                            coalesce(p.firstRow, 0), coalesce(p.pages, 0)
                        FROM search_documents_v6 s JOIN documents d ON d.id = s.documentId
                        LEFT JOIN (SELECT document, min(id) AS firstRow, count(*) AS pages FROM search_pages
                            GROUP BY document) p ON p.document = d.rowid;
                    DROP TABLE search_pages_v6;
                    DROP TABLE search_documents_v6;
                    CREATE VIRTUAL TABLE search_text USING fts5(
                        body, content = 'search_pages', content_rowid = 'id',
                        tokenize = 'unicode61 remove_diacritics 0', columnsize = 0);
                    INSERT INTO search_text (search_text) VALUES ('rebuild');
                    CREATE TRIGGER search_documents_added AFTER INSERT ON search_documents BEGIN
                        INSERT INTO search_text (rowid, body) SELECT id, body FROM search_pages
                            WHERE id >= NEW.firstRow AND id < NEW.firstRow + NEW.pages;
                    END;
                    CREATE TRIGGER search_documents_removed AFTER DELETE ON search_documents BEGIN
                        INSERT INTO search_text (search_text, rowid, body) SELECT 'delete', id, body FROM search_pages
                            WHERE id >= OLD.firstRow AND id < OLD.firstRow + OLD.pages;
                        DELETE FROM search_pages WHERE id >= OLD.firstRow AND id < OLD.firstRow + OLD.pages;
                    END;
                    CREATE TRIGGER documents_search_deleted AFTER DELETE ON documents BEGIN
                        DELETE FROM search_documents WHERE document = OLD.rowid;
                    END;
                    """)
        }
        return migrator
    }
}
