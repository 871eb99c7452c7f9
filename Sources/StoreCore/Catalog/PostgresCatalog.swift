import Foundation
import Logging
import PostgresNIO

/// The store's catalog and event log in PostgreSQL, shared by the nodes of a cluster (tables `quire_documents`,
/// `quire_events`, `quire_event_counter`, `quire_nodes`, `quire_owners` and `quire_schema`, so that the store can
/// share a database politely).
///
/// Event ids come from a one-row counter that every append increments inside its transaction: the row lock makes
/// appends commit one after the other, in id order, and a rolled-back append gives its id back. So ids are
/// gap-free across the cluster, and a node that has seen id N and reads "after N" never misses an event that
/// commits later with a smaller id (which a `bigserial` would allow). Each append also sends
/// `NOTIFY quire_events` with its id, delivered when the transaction commits: the nodes' live feeds listen to it
/// and take the log as the truth.
///
/// The catalog does not own its `PostgresClient`: the client must run (`run()` in a task, or as a service of the
/// service group) for as long as the catalog is used.
public struct PostgresCatalog: CatalogDatabase, NodeRegistry {
    /// The schema version this build writes (the number of its migrations); a database at a newer one is refused
    /// when the catalog opens.
    public static var schemaVersion: Int32 { Int32(migrations.count) }

    /// The channel each append notifies with its event id, and each update without an event with
    /// ``documentNotificationPrefix`` and the document's id.
    public static let notificationChannel = "quire_events"

    /// What a notification of a document changed without an event starts with (then the document's id).
    public static let documentNotificationPrefix = "document "

    let client: PostgresClient
    let logger: Logger
    private let deadline: Duration

    /// The database's address, without its password.
    public let location: String

    private init(client: PostgresClient, location: String, deadline: Duration, logger: Logger) {
        self.client = client
        self.location = location
        self.deadline = deadline
        self.logger = logger
    }

    /// Opens the catalog through `client` (which must be running) and brings its schema up to date; nodes that
    /// start together take turns (a transaction-scoped advisory lock).
    /// - Parameters:
    ///   - location: The database's address without its password, for messages.
    ///   - deadline: How long any one operation may take, waiting for a connection included (PostgresNIO's pool
    ///     waits for a connection for as long as it is asked to: an unreachable server would stall a request).
    /// - Throws: ``CatalogError/cannotOpen(path:reason:)`` when the database cannot be reached within the deadline
    ///   or migrated, or when its schema is newer than this build's (`reason` says which versions).
    public static func open(
        client: PostgresClient, location: String, deadline: Duration = .seconds(10), logger: Logger
    ) async throws(CatalogError) -> PostgresCatalog {
        let catalog = PostgresCatalog(client: client, location: location, deadline: deadline, logger: logger)
        do {
            try await catalog.naming("bring the schema up to date") { try await catalog.migrate() }
        } catch let error as CatalogError {
            guard case .databaseFailed(_, _, let reason) = error else { throw error }
            throw .cannotOpen(path: location, reason: reason)
        } catch {
            throw .cannotOpen(path: location, reason: "\(error)")  // cancelled
        }
        return catalog
    }

    /// The catalog through `client`, whose database's schema ``open(client:location:deadline:logger:)`` brought up
    /// to date before (through another client, say); `client` may start running after this returns.
    public static func opened(
        client: PostgresClient, location: String, deadline: Duration = .seconds(10), logger: Logger
    ) -> PostgresCatalog {
        PostgresCatalog(client: client, location: location, deadline: deadline, logger: logger)
    }

    /// The migrations, in order: each runs once per database and is never edited after it shipped.
    private static let migrations: [[PostgresQuery]] = [
        [
            """
            CREATE TABLE quire_documents (
                id text PRIMARY KEY,
                files text NOT NULL,
                origin text NOT NULL CHECK (origin IN ('upload', 'registered')),
                title text,
                page_count bigint NOT NULL CHECK (page_count >= 0),
                size bigint NOT NULL CHECK (size >= 0),
                etag text NOT NULL,
                state text NOT NULL CHECK (state IN ('clean', 'dirty', 'conflict', 'deleted', 'damaged')),
                conflict_type text CHECK (conflict_type IN ('deletion', 'modification')),
                created_at bigint NOT NULL,
                updated_at bigint NOT NULL,
                CHECK ((state = 'conflict') = (conflict_type IS NOT NULL))
            )
            """,
            """
            CREATE TABLE quire_events (
                id bigint PRIMARY KEY,
                type text NOT NULL CHECK (type IN
                    ('created', 'changed', 'moved', 'deleted', 'conflict', 'resolved', 'saved', 'damaged')),
                document_id text NOT NULL,
                etag text,
                at bigint NOT NULL,
                extra text NOT NULL DEFAULT '{}'
            )
            """,
            "CREATE TABLE quire_event_counter (last bigint NOT NULL)",
            "INSERT INTO quire_event_counter (last) VALUES (0)",
        ],
        [
            """
            CREATE TABLE quire_nodes (
                id text PRIMARY KEY,
                address text NOT NULL,
                version text NOT NULL,
                started_at bigint NOT NULL,
                heartbeat_at bigint NOT NULL,
                open_documents bigint NOT NULL DEFAULT 0
            )
            """
        ],
        [
            """
            CREATE TABLE quire_owners (
                document_id text PRIMARY KEY REFERENCES quire_documents (id) ON DELETE CASCADE,
                node_id text NOT NULL
            )
            """,
            "CREATE INDEX quire_owners_node ON quire_owners (node_id)",
        ],
        [
            "ALTER TABLE quire_documents ADD COLUMN version bigint NOT NULL DEFAULT 1 CHECK (version >= 1)",
            "ALTER TABLE quire_events ADD COLUMN version bigint",
        ],
        // Listings walk these covering indexes (ids in byte order, as SQLite's), so that a page costs the same at
        // a million documents as at ten: the listing order, and the same within one state (`state=`).
        [
            """
            CREATE INDEX quire_documents_listing ON quire_documents (created_at, (id COLLATE "C"))
                INCLUDE (updated_at)
            """,
            """
            CREATE INDEX quire_documents_state_listing ON quire_documents (state, created_at, (id COLLATE "C"))
                INCLUDE (updated_at)
            """,
            // Which document holds a file, and which directories hold documents' files, without reading every
            // row: kept by a trigger in the transaction that changes a document's files.
            """
            CREATE TABLE quire_document_files (
                path text NOT NULL, document_id text NOT NULL, directory text NOT NULL,
                PRIMARY KEY (document_id, path))
            """,
            "CREATE INDEX quire_document_files_path ON quire_document_files (path)",
            """
            CREATE TABLE quire_document_directories (
                directory text PRIMARY KEY, files bigint NOT NULL CHECK (files >= 0))
            """,
            """
            CREATE FUNCTION quire_document_files_sync() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'UPDATE' AND OLD.files IS NOT DISTINCT FROM NEW.files THEN RETURN NULL; END IF;
                IF TG_OP <> 'INSERT' THEN
                    WITH removed AS (DELETE FROM quire_document_files WHERE document_id = OLD.id RETURNING directory),
                        counts AS (SELECT directory, count(*) AS n FROM removed GROUP BY directory)
                    UPDATE quire_document_directories AS d SET files = d.files - counts.n
                        FROM counts WHERE d.directory = counts.directory;
                    DELETE FROM quire_document_directories WHERE files = 0
                        AND directory IN (SELECT regexp_replace(value, '/[^/]*$', '')
                            FROM json_array_elements_text(OLD.files::json));
                END IF;
                IF TG_OP <> 'DELETE' THEN
                    WITH added AS (
                        INSERT INTO quire_document_files (path, document_id, directory)
                        SELECT DISTINCT value, NEW.id, regexp_replace(value, '/[^/]*$', '')
                        FROM json_array_elements_text(NEW.files::json)
                        ON CONFLICT DO NOTHING RETURNING directory),
                        counts AS (SELECT directory, count(*) AS n FROM added GROUP BY directory)
                    INSERT INTO quire_document_directories (directory, files) SELECT directory, n FROM counts
                        ON CONFLICT (directory) DO UPDATE
                        SET files = quire_document_directories.files + EXCLUDED.files;
                END IF;
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER quire_document_files_sync AFTER INSERT OR DELETE OR UPDATE OF files ON quire_documents
                FOR EACH ROW EXECUTE FUNCTION quire_document_files_sync()
            """,
            """
            INSERT INTO quire_document_files (path, document_id, directory)
                SELECT DISTINCT value, id, regexp_replace(value, '/[^/]*$', '')
                FROM quire_documents, json_array_elements_text(files::json)
                ON CONFLICT DO NOTHING
            """,
            """
            INSERT INTO quire_document_directories (directory, files)
                SELECT directory, count(*) FROM quire_document_files GROUP BY directory
            """,
        ],
        // The full-text index (``SearchIndex``): per document, the version it reflects; per page with text (and
        // page 0, the metadata) its text and its `tsvector` (the 'simple' configuration: no stemming, no stop
        // words, as SQLite's unicode61), under a GIN index. A document leaving the catalog leaves the index.
        [
            """
            CREATE TABLE quire_search_documents (
                document_id text PRIMARY KEY REFERENCES quire_documents (id) ON DELETE CASCADE,
                version bigint NOT NULL,
                status text NOT NULL CHECK (status IN ('text', 'encrypted', 'damaged', 'failed')),
                pages bigint NOT NULL, text_bytes bigint NOT NULL, indexed_at bigint NOT NULL)
            """,
            """
            CREATE TABLE quire_search_pages (
                document_id text NOT NULL REFERENCES quire_search_documents (document_id) ON DELETE CASCADE,
                page integer NOT NULL, label text, body text NOT NULL,
                tsv tsvector NOT NULL GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED,
                PRIMARY KEY (document_id, page))
            """,
            "CREATE INDEX quire_search_pages_tsv ON quire_search_pages USING GIN (tsv)",
        ],
        // Each event says which node recorded it: a node tells its own from the others' by the log alone.
        ["ALTER TABLE quire_events ADD COLUMN node text"],
    ]

    private func migrate() async throws {
        try await client.withTransaction(logger: logger) { connection in
            // One key for "the Quire schema": nodes starting together migrate one after the other.
            try await connection.query("SELECT pg_advisory_xact_lock(7317526900)", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS quire_schema (version integer NOT NULL)", logger: logger)
            var version: Int32 = 0
            for try await row in try await connection.query("SELECT version FROM quire_schema", logger: logger)
                .decode(Int32.self)
            {
                version = max(version, row)
            }
            if version > Self.schemaVersion {
                throw CatalogError.cannotOpen(
                    path: location,
                    reason: "the database's schema is version \(version), newer than this Quire's "
                        + "(\(Self.schemaVersion)): run the newer Quire, or another database")
            }
            for index in Int(version)..<Self.migrations.count {
                for statement in Self.migrations[index] { try await connection.query(statement, logger: logger) }
            }
            if version < Self.schemaVersion {
                try await connection.query("DELETE FROM quire_schema", logger: logger)
                try await connection.query(
                    "INSERT INTO quire_schema (version) VALUES (\(Self.schemaVersion))", logger: logger)
            }
        }
    }

    // MARK: DocumentCatalog

    /// Adds a document, and appends `event` in the same transaction; `owner` (a node's id) owns it from the same
    /// transaction on, so no other node can claim it between its making and its maker's claim.
    /// - Returns: The appended event with its id, or nil when none was given.
    /// - Throws: ``CatalogError/duplicateDocument(_:)``, ``CatalogError/databaseFailed(path:operation:reason:)``,
    ///   or `CancellationError`.
    @discardableResult
    public func insert(_ document: DocumentRecord, recording event: StoreEvent?, ownedBy owner: String?) async throws
        -> StoreEvent?
    {
        let columns = CatalogColumns.Document(document)
        return try await transaction("add document \(document.id)") { connection, logger in
            do {
                try await connection.query(
                    """
                    INSERT INTO quire_documents (id, files, origin, title, page_count, size, etag, state,
                        conflict_type, version, created_at, updated_at)
                    VALUES (\(columns.id), \(columns.files), \(columns.origin), \(columns.title), \(columns.pageCount),
                        \(columns.size), \(columns.etag), \(columns.state), \(columns.conflictType), 1,
                        \(columns.createdAt), \(columns.updatedAt))
                    """, logger: logger)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                throw CatalogError.duplicateDocument(document.id)
            }
            if let owner {
                try await connection.query(
                    "INSERT INTO quire_owners (document_id, node_id) VALUES (\(columns.id), \(owner))", logger: logger)
            }
            return try await Self.append(event, connection, logger, version: 1)
        }
    }

    /// Replaces a document's entry, and appends `event` in the same transaction.
    /// - Returns: The appended event with its id, or nil when none was given.
    /// - Throws: ``CatalogError/documentNotFound(_:)``, ``CatalogError/databaseFailed(path:operation:reason:)``,
    ///   or `CancellationError`.
    @discardableResult
    public func update(_ document: DocumentRecord, recording event: StoreEvent?) async throws -> StoreEvent? {
        let columns = CatalogColumns.Document(document)
        return try await transaction("update document \(document.id)") { connection, logger in
            let rows = try await connection.query(
                """
                UPDATE quire_documents SET files = \(columns.files), origin = \(columns.origin),
                    title = \(columns.title), page_count = \(columns.pageCount), size = \(columns.size),
                    etag = \(columns.etag), state = \(columns.state), conflict_type = \(columns.conflictType),
                    created_at = \(columns.createdAt), updated_at = \(columns.updatedAt), version = version + 1
                WHERE id = \(columns.id) RETURNING version
                """, logger: logger)
            var versions: [Int64] = []
            for try await version in rows.decode(Int64.self) { versions.append(version) }
            guard versions.count == 1 else { throw CatalogError.documentNotFound(document.id) }
            if event == nil {
                // No event tells the other nodes of this change (an edit made the document dirty, say): a
                // notification does, so that they drop what they cached of it.
                try await connection.query(
                    "SELECT pg_notify(\(Self.notificationChannel), \(Self.documentNotificationPrefix + document.id.rawValue))",
                    logger: logger)
            }
            return try await Self.append(event, connection, logger, version: versions[0])
        }
    }

    /// Removes a document's entry, and appends `event` in the same transaction. Its events stay in the log.
    /// - Returns: The appended event with its id, or nil when none was given.
    /// - Throws: ``CatalogError/documentNotFound(_:)``, ``CatalogError/databaseFailed(path:operation:reason:)``,
    ///   or `CancellationError`.
    @discardableResult
    public func deleteDocument(_ id: DocumentID, recording event: StoreEvent?) async throws -> StoreEvent? {
        try await transaction("delete document \(id)") { connection, logger in
            let rows = try await connection.query(
                "DELETE FROM quire_documents WHERE id = \(id.rawValue) RETURNING version", logger: logger)
            var versions: [Int64] = []
            for try await version in rows.decode(Int64.self) { versions.append(version) }
            guard versions.count == 1 else { throw CatalogError.documentNotFound(id) }
            return try await Self.append(event, connection, logger, version: versions[0] + 1)
        }
    }

    /// The document with this id, or nil.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func document(_ id: DocumentID) async throws -> DocumentRecord? {
        try await documents(where: "WHERE id = \(id.rawValue)", operation: "read document \(id)").first
    }

    /// Every document, oldest first (ties by id).
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func documents() async throws -> [DocumentRecord] {
        try await documents(where: "ORDER BY created_at, id", operation: "list documents")
    }

    /// The keys of at most `limit` documents after `position`, in listing order, only those in `state` when one
    /// is given: a range of a covering index (`quire_documents_listing`, or `quire_documents_state_listing`).
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func listingKeys(state: DocumentState.Name?, after position: ListingPosition?, limit: Int) async throws
        -> [ListingKey]
    {
        var query: PostgresQuery = "SELECT created_at, id, updated_at FROM quire_documents WHERE true"
        if let state {
            query.sql += " AND state = $\(query.binds.count + 1)"
            query.binds.append(state.rawValue)
        }
        if let position {
            query.sql += " AND (created_at, id COLLATE \"C\") > ($\(query.binds.count + 1), $\(query.binds.count + 2))"
            query.binds.append(position.createdAt)
            query.binds.append(position.id)
        }
        query.sql += " ORDER BY created_at, id COLLATE \"C\" LIMIT $\(query.binds.count + 1)"
        query.binds.append(Int64(max(0, limit)))
        let client = client
        let logger = logger
        let built = query
        return try await naming("list documents") {
            var keys: [ListingKey] = []
            for try await row in try await client.query(built, logger: logger).decode((Int64, String, Int64).self) {
                keys.append(ListingKey(createdAt: row.0, id: row.1, updatedAt: row.2))
            }
            return keys
        }
    }

    /// The documents with these ids that exist, in no particular order.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func documents(ids: [String]) async throws -> [DocumentRecord] {
        try await documents(where: "WHERE id = ANY(\(ids))", operation: "read \(ids.count) documents")
    }

    /// The documents that hold at least one of `paths` among their files, in no particular order.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func documents(holdingAnyOf paths: [String]) async throws -> [DocumentRecord] {
        guard !paths.isEmpty else { return [] }
        return try await documents(
            where: "WHERE id IN (SELECT document_id FROM quire_document_files WHERE path = ANY(\(paths)))",
            operation: "find the documents of \(paths.count) files")
    }

    /// The directories that hold at least one document's file.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func documentDirectories() async throws -> [String] {
        let client = client
        let logger = logger
        return try await naming("list the documents' directories") {
            var directories: [String] = []
            for try await directory in try await client.query(
                "SELECT directory FROM quire_document_directories ORDER BY directory", logger: logger
            ).decode(String.self) {
                directories.append(directory)
            }
            return directories
        }
    }

    func documents(where clause: PostgresQuery, operation: String) async throws -> [DocumentRecord] {
        let client = client
        let logger = logger
        var built: PostgresQuery = """
            SELECT id, files, origin, title, page_count, size, etag, state, conflict_type, version, created_at,
                updated_at
            FROM quire_documents
            """
        built.sql += " " + clause.sql
        built.binds = clause.binds
        let query = built
        return try await naming(operation) {
            var records: [DocumentRecord] = []
            let rows = try await client.query(query, logger: logger)
            for try await row in rows.decode(
                (String, String, String, String?, Int64, Int64, String, String, String?, Int64, Int64, Int64).self)
            {
                let columns = CatalogColumns.Document(
                    id: row.0, files: row.1, origin: row.2, title: row.3, pageCount: row.4, size: row.5, etag: row.6,
                    state: row.7, conflictType: row.8, version: row.9, createdAt: row.10, updatedAt: row.11)
                records.append(try columns.record(table: "quire_documents"))
            }
            return records
        }
    }

    // MARK: EventLog

    /// Appends an event to the log (and notifies `quire_events` with its id on commit).
    /// - Returns: The event with the id the log gave it, one more than the last id given.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    @discardableResult
    public func append(_ event: StoreEvent) async throws -> StoreEvent {
        try await transaction("append a \(event.type.rawValue) event") { connection, logger in
            var version: Int64?
            for try await value in try await connection.query(
                """
                UPDATE quire_documents SET version = version + 1 WHERE id = \(event.documentID.rawValue)
                RETURNING version
                """, logger: logger
            ).decode(Int64.self) {
                version = value
            }
            return try await Self.append(event, connection, logger, version: version)!
        }
    }

    /// The events with an id greater than `id`, oldest first, at most `limit` of them.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func events(after id: Int64, limit: Int) async throws -> [StoreEvent] {
        let client = client
        let logger = logger
        return try await naming("read events after \(id)") {
            var events: [StoreEvent] = []
            let rows = try await client.query(
                """
                SELECT id, type, document_id, etag, at, extra, version, node FROM quire_events
                WHERE id > \(id) ORDER BY id LIMIT \(Int64(max(0, limit)))
                """, logger: logger)
            for try await row in rows.decode((Int64, String, String, String?, Int64, String, Int64?, String?).self) {
                let columns = CatalogColumns.Event(
                    type: row.1, documentID: row.2, etag: row.3, at: row.4, extra: row.5, version: row.6,
                    node: row.7)
                events.append(try columns.event(id: row.0, table: "quire_events"))
            }
            return events
        }
    }

    /// The greatest id the log ever gave, 0 when it gave none.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func lastEventID() async throws -> Int64 {
        let client = client
        let logger = logger
        return try await naming("read the last event id") {
            var last: Int64 = 0
            for try await value in try await client.query("SELECT last FROM quire_event_counter", logger: logger)
                .decode(Int64.self)
            {
                last = value
            }
            return last
        }
    }

    // MARK: NodeRegistry

    /// The database's clock in milliseconds since 1970: every node's heartbeat is dated by one clock.
    private static let now: String = "(extract(epoch from clock_timestamp()) * 1000)::bigint"

    /// Records that `node` is alive now (the database's clock), adding it if it is new.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func heartbeat(_ node: NodeRecord) async throws {
        let client = client
        let logger = logger
        let started = node.startedAt.catalogMilliseconds
        let open = Int64(node.openDocuments)
        let query: PostgresQuery = """
            INSERT INTO quire_nodes (id, address, version, started_at, heartbeat_at, open_documents)
            VALUES (\(node.id), \(node.address), \(node.version), \(started), \(unescaped: Self.now), \(open))
            ON CONFLICT (id) DO UPDATE SET address = EXCLUDED.address, open_documents = EXCLUDED.open_documents,
                heartbeat_at = \(unescaped: Self.now)
            """
        try await naming("record node \(node.id)'s heartbeat") {
            _ = try await client.query(query, logger: logger)
        }
    }

    /// Every node known, oldest start first, with whether its last heartbeat is within `liveness` (by the
    /// database's clock).
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func nodes(liveness: Duration) async throws -> [(node: NodeRecord, isLive: Bool)] {
        let client = client
        let logger = logger
        let window = liveness.components.seconds * 1000 + liveness.components.attoseconds / 1_000_000_000_000_000
        let query: PostgresQuery = """
            SELECT id, address, version, started_at, heartbeat_at, open_documents,
                heartbeat_at > \(unescaped: Self.now) - \(Int64(window)),
                (SELECT count(*) FROM quire_owners o WHERE o.node_id = quire_nodes.id)
            FROM quire_nodes ORDER BY started_at, id
            """
        return try await naming("list the nodes") {
            var nodes: [(node: NodeRecord, isLive: Bool)] = []
            for try await row in try await client.query(query, logger: logger)
                .decode((String, String, String, Int64, Int64, Int64, Bool, Int64).self)
            {
                nodes.append(
                    (
                        NodeRecord(
                            id: row.0, address: row.1, version: row.2, startedAt: Date(catalogMilliseconds: row.3),
                            lastHeartbeat: Date(catalogMilliseconds: row.4), openDocuments: Int(row.5),
                            ownedDocuments: Int(row.7)),
                        row.6
                    ))
            }
            return nodes
        }
    }

    /// Removes a node. Its documents keep it as their owner, a node no longer alive: the others take them over at
    /// their next sweep (``takeOver(for:liveness:limit:)``), a second at most.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func leave(_ id: String) async throws {
        let client = client
        let logger = logger
        try await naming("remove node \(id)") {
            _ = try await client.query("DELETE FROM quire_nodes WHERE id = \(id)", logger: logger)
        }
    }

    /// The document's owner, claimed for `node` when it has none or a dead one, in one transaction (the owner's
    /// row is locked while it is read and changed, so two nodes claiming at once get one answer).
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func owner(of id: DocumentID, claimingFor node: String, liveness: Duration) async throws
        -> DocumentOwner
    {
        let window = Self.milliseconds(liveness)
        return try await transaction("find the owner of document \(id)") { connection, logger in
            let claimed = try await connection.query(
                """
                INSERT INTO quire_owners (document_id, node_id)
                SELECT id, \(node) FROM quire_documents WHERE id = \(id.rawValue)
                ON CONFLICT (document_id) DO NOTHING RETURNING node_id
                """, logger: logger
            ).collect()
            if !claimed.isEmpty { return .this(takenOverFrom: nil) }
            var current: (node: String, address: String, live: Bool)?
            for try await row in try await connection.query(
                """
                SELECT o.node_id, coalesce(n.address, ''),
                    coalesce(n.heartbeat_at > \(unescaped: Self.now) - \(window), false)
                FROM quire_owners o LEFT JOIN quire_nodes n ON n.id = o.node_id
                WHERE o.document_id = \(id.rawValue) FOR UPDATE OF o
                """, logger: logger
            ).decode((String, String, Bool).self) {
                current = (row.0, row.1, row.2)
            }
            guard let current else { return .this(takenOverFrom: nil) }  // no such document
            if current.node == node { return .this(takenOverFrom: nil) }
            if current.live { return .other(node: current.node, address: current.address) }
            try await connection.query(
                "UPDATE quire_owners SET node_id = \(node) WHERE document_id = \(id.rawValue)", logger: logger)
            return .this(takenOverFrom: current.node)
        }
    }

    /// Claims for `node` at most `limit` documents whose owner is dead (rows another node is claiming at the
    /// same moment are skipped, not waited for), then as many documents as are left of `limit` that have no
    /// owner at all (made before owners were kept, or whose maker died before it claimed them) and entered the
    /// store more than `liveness` ago: a document just made is its maker's, which claims it right after.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func takeOver(for node: String, liveness: Duration, limit: Int) async throws -> [DocumentTakeover] {
        let window = Self.milliseconds(liveness)
        let limit = Int64(max(0, limit))
        return try await transaction("take over the documents of dead nodes") { connection, logger in
            var taken: [DocumentTakeover] = []
            for try await row in try await connection.query(
                """
                UPDATE quire_owners o SET node_id = \(node)
                FROM (
                    SELECT document_id, node_id AS previous FROM quire_owners c
                    WHERE c.node_id <> \(node) AND NOT EXISTS (
                        SELECT 1 FROM quire_nodes n
                        WHERE n.id = c.node_id AND n.heartbeat_at > \(unescaped: Self.now) - \(window))
                    ORDER BY document_id LIMIT \(limit) FOR UPDATE SKIP LOCKED
                ) dead
                WHERE o.document_id = dead.document_id
                RETURNING o.document_id, dead.previous
                """, logger: logger
            ).decode((String, String).self) {
                guard let id = DocumentID(rawValue: row.0) else { continue }
                taken.append(DocumentTakeover(document: id, from: row.1))
            }
            let left = limit - Int64(taken.count)
            guard left > 0 else { return taken }
            for try await row in try await connection.query(
                """
                INSERT INTO quire_owners (document_id, node_id)
                SELECT d.id, \(node) FROM quire_documents d
                WHERE NOT EXISTS (SELECT 1 FROM quire_owners o WHERE o.document_id = d.id)
                    AND d.created_at < \(unescaped: Self.now) - \(window)
                ORDER BY d.id LIMIT \(left)
                ON CONFLICT (document_id) DO NOTHING RETURNING document_id
                """, logger: logger
            ).decode(String.self) {
                guard let id = DocumentID(rawValue: row) else { continue }
                taken.append(DocumentTakeover(document: id, from: nil))
            }
            return taken
        }
    }

    /// A duration in whole milliseconds, for comparisons with the database's clock.
    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    // MARK: Helpers

    /// Appends `event` inside the caller's transaction: takes the next id from the counter (locking its row until
    /// the transaction ends), inserts the event and queues its notification.
    private static func append(
        _ event: StoreEvent?, _ connection: PostgresConnection, _ logger: Logger, version: Int64?
    ) async throws -> StoreEvent? {
        guard var event else { return nil }
        event.version = version
        var id: Int64 = 0
        for try await value in try await connection.query(
            "UPDATE quire_event_counter SET last = last + 1 RETURNING last", logger: logger
        ).decode(Int64.self) {
            id = value
        }
        let columns = CatalogColumns.Event(event)
        try await connection.query(
            """
            INSERT INTO quire_events (id, type, document_id, etag, at, extra, version, node)
            VALUES (\(id), \(columns.type), \(columns.documentID), \(columns.etag), \(columns.at), \(columns.extra),
                \(version), \(columns.node))
            """, logger: logger)
        try await connection.query(
            "SELECT pg_notify(\(notificationChannel), \(String(id)))", logger: logger)
        event.id = id
        return event
    }

    func transaction<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let client = client
        let logger = logger
        return try await naming(operation) {
            do {
                return try await client.withTransaction(logger: logger) { connection in
                    try await body(connection, logger)
                }
            } catch let error as PostgresTransactionError {
                // The body's own error (a duplicate, a missing document, cancellation) when the rollback went well;
                // else the first database error.
                if let closure = error.closureError, error.rollbackError == nil { throw closure }
                throw error.beginError ?? error.closureError ?? error.rollbackError ?? error.commitError ?? error
            }
        }
    }

    /// Why an operation ended at its deadline.
    private struct DeadlinePassed: Error {}

    /// Runs a database access within the catalog's deadline, turning PostgreSQL's errors (and the deadline) into
    /// ``CatalogError/databaseFailed(path:operation:reason:)`` that names the operation; the catalog's own errors
    /// and cancellation pass through.
    func naming<T: Sendable>(
        _ operation: String, _ access: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let deadline = deadline
        do {
            return try await withThrowingTaskGroup(of: T.self) { group in
                group.addTask { try await access() }
                group.addTask {
                    try await Task.sleep(for: deadline)
                    throw DeadlinePassed()
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch let error as CatalogError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch is DeadlinePassed {
            throw CatalogError.databaseFailed(
                path: location, operation: operation,
                reason: "no answer within \(deadline) (is PostgreSQL running and reachable?)")
        } catch {
            throw CatalogError.databaseFailed(path: location, operation: operation, reason: Self.reason(error))
        }
    }

    /// One line for a PostgreSQL error: the server's message and SQLSTATE, or the client's error code and cause.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return "\(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
