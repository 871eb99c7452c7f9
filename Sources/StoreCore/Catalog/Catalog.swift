import Foundation
import GRDB
import Synchronization

/// The store's catalog of documents and its persisted event log, in one SQLite database
/// (`<store>/catalog.sqlite`, WAL mode, through a GRDB `DatabasePool`: reads run in parallel with the one writer).
///
/// A change to a document and the event that reports it can commit together (`recording:`), so that the log never
/// tells of a change the catalog lacks or the reverse. Operations run on GRDB's queues, never blocking the caller's
/// thread.
public struct Catalog: CatalogDatabase {
    let database: DatabasePool
    /// Who is told of each event as it commits (``observeCommittedEvents(_:)``).
    private let commitObserver = CommitObserver()
    /// How many reads this catalog made (work counted, not timed: tests check what an operation costs).
    private let reads = ReadCounter()

    /// The database file.
    public let databaseURL: URL

    /// The page size of a new catalog's database, in bytes.
    static let pageSize = 8192

    /// The database file's path.
    public var location: String { databaseURL.path }

    /// Opens the catalog in `storeDirectory` (created, readable by its owner only, when missing) and brings its
    /// schema up to date.
    /// - Throws: ``CatalogError/cannotOpen(path:reason:)`` when the directory or the database cannot be created,
    ///   opened or migrated.
    public init(storeDirectory: URL) throws(CatalogError) {
        let databaseURL = storeDirectory.appendingPathComponent("catalog.sqlite", isDirectory: false)
        self.databaseURL = databaseURL
        do {
            try FileManager.default.createDirectory(
                at: storeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            var configuration = Configuration()
            configuration.label = "quire.catalog"
            configuration.busyMode = .timeout(5)
            // A new catalog's pages are 8 KiB: a page of a PDF's text (2 to 4 KiB) leaves less of a database page
            // empty than at SQLite's 4 KiB. An existing catalog keeps its page size (WAL mode cannot change it).
            // Temporary structures (a trigger's rows from json_each, a statement's journal) stay in memory. As
            // files in /var/tmp, one document insert in six created and unlinked one; on ext4 without a journal,
            // every file created in the next 30 s steps over each inode freed that way. What the catalog's
            // statements keep there is small: listings walk indexes, a search sorts at most its page of results.
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA page_size = \(Self.pageSize)")
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
            }
            database = try DatabasePool(path: databaseURL.path, configuration: configuration)
            // A migration this build does not know: a newer Quire wrote the catalog, and this one must not touch it.
            if try database.read({ try CatalogSchema.migrator.hasBeenSuperseded($0) }) {
                throw CatalogError.cannotOpen(
                    path: databaseURL.path,
                    reason: "the catalog's schema is newer than this Quire's (it has migrations this build does not "
                        + "know): run the newer Quire, or another store directory")
            }
            try CatalogSchema.migrator.migrate(database)
        } catch let error as CatalogError {
            throw error
        } catch {
            throw .cannotOpen(path: databaseURL.path, reason: Self.reason(error))
        }
    }

    /// Adds a document, and appends `event` in the same transaction. `owner` is ignored: the one node of an
    /// embedded catalog owns every document.
    /// - Returns: The appended event with its id, or nil when none was given.
    /// - Throws: ``CatalogError/duplicateDocument(_:)``, ``CatalogError/databaseFailed(path:operation:reason:)``,
    ///   or `CancellationError`.
    @discardableResult
    public func insert(_ document: DocumentRecord, recording event: StoreEvent?, ownedBy owner: String?) async throws
        -> StoreEvent?
    {
        try await write("add document \(document.id)") { db in
            var document = document
            document.version = 1
            do {
                try document.insert(db)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
                throw CatalogError.duplicateDocument(document.id)
            }
            return try append(event, db, version: 1)
        }
    }

    /// Replaces a document's entry, and appends `event` in the same transaction.
    /// - Returns: The appended event with its id, or nil when none was given.
    /// - Throws: ``CatalogError/documentNotFound(_:)``, ``CatalogError/databaseFailed(path:operation:reason:)``,
    ///   or `CancellationError`.
    @discardableResult
    public func update(_ document: DocumentRecord, recording event: StoreEvent?) async throws -> StoreEvent? {
        try await write("update document \(document.id)") { db in
            guard let current = try Self.version(of: document.id, db) else {
                throw CatalogError.documentNotFound(document.id)
            }
            var document = document
            document.version = current + 1
            try document.update(db)
            return try append(event, db, version: document.version)
        }
    }

    /// Removes a document's entry, and appends `event` in the same transaction. Its events stay in the log.
    /// - Returns: The appended event with its id, or nil when none was given.
    /// - Throws: ``CatalogError/documentNotFound(_:)``, ``CatalogError/databaseFailed(path:operation:reason:)``,
    ///   or `CancellationError`.
    @discardableResult
    public func deleteDocument(_ id: DocumentID, recording event: StoreEvent?) async throws -> StoreEvent? {
        try await write("delete document \(id)") { db in
            guard let current = try Self.version(of: id, db), try DocumentRecord.deleteOne(db, key: id.rawValue) else {
                throw CatalogError.documentNotFound(id)
            }
            return try append(event, db, version: current + 1)
        }
    }

    /// The document with this id, or nil.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func document(_ id: DocumentID) async throws -> DocumentRecord? {
        try await read("read document \(id)") { db in try DocumentRecord.fetchOne(db, key: id.rawValue) }
    }

    /// Every document, oldest first.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func documents() async throws -> [DocumentRecord] {
        try await read("list documents") { db in
            try DocumentRecord.order(DocumentRecord.ColumnNames.createdAt, DocumentRecord.ColumnNames.id).fetchAll(db)
        }
    }

    /// The keys of at most `limit` documents after `position`, in listing order, only those in `state` when one
    /// is given: a range of a covering index (`documents_listing`, or `documents_state_listing`).
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func listingKeys(state: DocumentState.Name?, after position: ListingPosition?, limit: Int) async throws
        -> [ListingKey]
    {
        try await read("list documents") { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let state {
                conditions.append("state = ?")
                arguments += [state.rawValue]
            }
            if let position {
                conditions.append("(createdAt, id) > (?, ?)")
                arguments += [position.createdAt, position.id]
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            arguments += [max(0, limit)]
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT createdAt, id, updatedAt FROM documents \(filter) ORDER BY createdAt, id LIMIT ?",
                arguments: arguments)
            var keys: [ListingKey] = []
            while let row = try rows.next() {
                keys.append(ListingKey(createdAt: row[0], id: row[1], updatedAt: row[2]))
            }
            return keys
        }
    }

    /// The documents with these ids that exist, in no particular order.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func documents(ids: [String]) async throws -> [DocumentRecord] {
        try await read("read \(ids.count) documents") { db in
            try DocumentRecord.filter(keys: ids).fetchAll(db)
        }
    }

    /// The documents that hold at least one of `paths` among their files, in no particular order.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func documents(holdingAnyOf paths: [String]) async throws -> [DocumentRecord] {
        guard !paths.isEmpty else { return [] }
        return try await read("find the documents of \(paths.count) files") { db in
            let marks = Array(repeating: "?", count: paths.count).joined(separator: ", ")
            let sql =
                "SELECT * FROM documents WHERE id IN (SELECT documentId FROM document_files WHERE path IN (\(marks)))"
            // One file (a watched directory's event) is the common question: its statement is compiled once.
            let statement = try paths.count == 1 ? db.cachedStatement(sql: sql) : db.makeStatement(sql: sql)
            return try DocumentRecord.fetchAll(statement, arguments: StatementArguments(paths))
        }
    }

    /// The directories that hold at least one document's file.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func documentDirectories() async throws -> [String] {
        try await read("list the documents' directories") { db in
            try String.fetchAll(db, sql: "SELECT directory FROM document_directories ORDER BY directory")
        }
    }

    /// Appends an event to the log; a document still in the catalog moves to its next version, which the event
    /// names.
    /// - Returns: The event with the id the log gave it, greater than every id given before.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    @discardableResult
    public func append(_ event: StoreEvent) async throws -> StoreEvent {
        try await write("append a \(event.type.rawValue) event") { db in
            var version: Int64?
            if let current = try Self.version(of: event.documentID, db) {
                version = current + 1
                try db.execute(
                    sql: "UPDATE documents SET version = ? WHERE id = ?",
                    arguments: [current + 1, event.documentID.rawValue])
            }
            return try append(event, db, version: version)!
        }
    }

    /// The events with an id greater than `id`, oldest first, at most `limit` of them: what a client that saw
    /// `id` last (its `Last-Event-ID`) missed.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func events(after id: Int64, limit: Int) async throws -> [StoreEvent] {
        try await read("read events after \(id)") { db in
            try StoreEvent.filter(StoreEvent.ColumnNames.id > id).order(StoreEvent.ColumnNames.id).limit(limit)
                .fetchAll(db)
        }
    }

    /// The greatest id the log ever gave, 0 when it gave none: a new client starts after it.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    public func lastEventID() async throws -> Int64 {
        try await read("read the last event id") { db in
            // The AUTOINCREMENT counter, not MAX(id): it keeps counting when the newest events are deleted.
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: ["events"]) ?? 0
        }
    }

    /// Closes the database; later operations fail.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)`` when SQLite cannot close it.
    public func close() throws(CatalogError) {
        do {
            try database.close()
        } catch {
            throw .databaseFailed(path: databaseURL.path, operation: "close the database", reason: Self.reason(error))
        }
    }

    /// Tells `observer` of every event this catalog appends, as its transaction commits: on the database's one
    /// writer, so in commit order, which is id order (a rolled-back append tells nothing, and gives its id back).
    /// This is how one node's live feed publishes events without a gap and never out of order, however many
    /// writers commit at once. `observer` must not block (it runs on the writer); a later call replaces it.
    package func observeCommittedEvents(_ observer: @escaping @Sendable (StoreEvent) -> Void) {
        commitObserver.observer.withLock { $0 = Callback(observer) }
    }

    private func append(_ event: StoreEvent?, _ db: Database, version: Int64?) throws -> StoreEvent? {
        guard var event else { return nil }
        event.version = version
        try event.insert(db)
        if let observer = commitObserver.observer.withLock({ $0 }) {
            let committed = event
            db.afterNextTransaction(onCommit: { _ in observer.call(committed) })
        }
        return event
    }

    /// The stored version of document `id`, nil when it is not in the catalog.
    private static func version(of id: DocumentID, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT version FROM documents WHERE id = ?", arguments: [id.rawValue])
    }

    func write<T: Sendable>(
        _ operation: String, _ updates: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        try await naming(operation) { try await database.write(updates) }
    }

    func read<T: Sendable>(
        _ operation: String, _ value: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        reads.count.add(1, ordering: .relaxed)
        return try await naming(operation) { try await database.read(value) }
    }

    /// How many reads (each a transaction of the pool's readers) this catalog has made since it was opened.
    package var readsMade: Int { reads.count.load(ordering: .relaxed) }

    /// Runs a database access, turning SQLite's errors into ``CatalogError/databaseFailed(path:operation:reason:)``
    /// that names the operation; the catalog's own errors and cancellation pass through.
    private func naming<T>(_ operation: String, _ access: () async throws -> T) async throws -> T {
        do {
            return try await access()
        } catch let error as DatabaseError {
            throw CatalogError.databaseFailed(path: databaseURL.path, operation: operation, reason: Self.reason(error))
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? error.resultCode.description }
        if let error = error as? CocoaError, let underlying = error.underlying { return "\(underlying)" }
        return "\(error)"
    }
}

/// The holder of a catalog's commit observer (the catalog is a value; its observer is shared by its copies).
private final class CommitObserver: Sendable {
    let observer = Mutex<Callback<StoreEvent>?>(nil)
}

/// The count of a catalog's reads, shared by its copies.
private final class ReadCounter: Sendable {
    let count = Atomic<Int>(0)
}
