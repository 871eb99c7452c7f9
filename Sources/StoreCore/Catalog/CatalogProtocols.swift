/// Where the store keeps its documents' entries: one implementation per database engine (``Catalog``, SQLite
/// through GRDB, the embedded default of one node; ``PostgresCatalog``, PostgreSQL through PostgresNIO, shared by
/// the nodes of a cluster). Both pass the same conformance suite.
///
/// A change may carry the event that reports it (`recording:`): the change and the event commit together or not
/// at all, so the log never tells of a change the catalog lacks, or the reverse.
public protocol DocumentCatalog: Sendable {
    /// Adds a document, and appends `event` in the same transaction. `owner`, on a cluster's catalog, is the node
    /// that owns the document from the moment it exists (claimed in the same transaction, so no other node can
    /// claim it first); a catalog of one node has no owners (its node owns every document) and ignores it.
    /// - Returns: The appended event with its id, or nil when none was given.
    /// - Throws: ``CatalogError/duplicateDocument(_:)``, ``CatalogError/databaseFailed(path:operation:reason:)``,
    ///   or `CancellationError`.
    @discardableResult
    func insert(_ document: DocumentRecord, recording event: StoreEvent?, ownedBy owner: String?) async throws
        -> StoreEvent?

    /// Replaces a document's entry, and appends `event` in the same transaction.
    /// - Returns: The appended event with its id, or nil when none was given.
    /// - Throws: ``CatalogError/documentNotFound(_:)``, ``CatalogError/databaseFailed(path:operation:reason:)``,
    ///   or `CancellationError`.
    @discardableResult
    func update(_ document: DocumentRecord, recording event: StoreEvent?) async throws -> StoreEvent?

    /// Removes a document's entry, and appends `event` in the same transaction. Its events stay in the log.
    /// - Returns: The appended event with its id, or nil when none was given.
    /// - Throws: ``CatalogError/documentNotFound(_:)``, ``CatalogError/databaseFailed(path:operation:reason:)``,
    ///   or `CancellationError`.
    @discardableResult
    func deleteDocument(_ id: DocumentID, recording event: StoreEvent?) async throws -> StoreEvent?

    /// The document with this id, or nil.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func document(_ id: DocumentID) async throws -> DocumentRecord?

    /// Every document, oldest first (ties by id).
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func documents() async throws -> [DocumentRecord]

    /// The keys of at most `limit` documents after `position` (from the first when nil), in listing order (see
    /// ``ListingPosition``), only those in `state` when one is given: a walk of a listing index that reads no
    /// document row, whose cost grows with `limit`, never with the number of documents.
    /// ``DocumentCatalog/documents(_:)`` makes pages of these walks.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func listingKeys(state: DocumentState.Name?, after position: ListingPosition?, limit: Int) async throws
        -> [ListingKey]

    /// The documents with these ids that exist, in no particular order.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func documents(ids: [String]) async throws -> [DocumentRecord]

    /// The documents that hold at least one of `paths` among their files, in no particular order: a lookup of
    /// the catalog's file index (kept with every change of a document's files), never a walk of the documents.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func documents(holdingAnyOf paths: [String]) async throws -> [DocumentRecord]

    /// The directories that hold at least one document's file (what a node watches), sorted: read from a table
    /// of directories kept with the file index, never from the documents.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func documentDirectories() async throws -> [String]
}

/// The store's persisted event log: ids that only grow (across restarts, and across the nodes of a cluster), with
/// no gap between committed events, and committed in id order, so that a reader that has seen id N and reads
/// "after N" never misses an event that commits later with a smaller id.
public protocol EventLog: Sendable {
    /// Appends an event to the log.
    /// - Returns: The event with the id the log gave it, greater than every id given before.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    @discardableResult
    func append(_ event: StoreEvent) async throws -> StoreEvent

    /// The events with an id greater than `id`, oldest first, at most `limit` of them: what a client that saw
    /// `id` last (its `Last-Event-ID`) missed.
    /// - Throws: ``CatalogError/corruptRow(table:column:value:)``,
    ///   ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func events(after id: Int64, limit: Int) async throws -> [StoreEvent]

    /// The greatest id the log ever gave, 0 when it gave none: a new client starts after it.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)``, or `CancellationError`.
    func lastEventID() async throws -> Int64
}

/// A catalog, its event log and its full-text index in one database, so that a change and its event commit
/// together, and a document leaves the index as it leaves the catalog: what the store's library and routes use.
public protocol CatalogDatabase: DocumentCatalog, EventLog, SearchIndex {
    /// Where the database is, for messages (a file path, or a PostgreSQL address without its password).
    var location: String { get }
}

extension DocumentCatalog {
    /// Adds a document, recording no event.
    /// - Throws: As ``DocumentCatalog/insert(_:recording:ownedBy:)``.
    @discardableResult
    public func insert(_ document: DocumentRecord) async throws -> StoreEvent? {
        try await insert(document, recording: nil, ownedBy: nil)
    }

    /// Adds a document with no owner yet, and appends `event` in the same transaction.
    /// - Throws: As ``DocumentCatalog/insert(_:recording:ownedBy:)``.
    @discardableResult
    public func insert(_ document: DocumentRecord, recording event: StoreEvent?) async throws -> StoreEvent? {
        try await insert(document, recording: event, ownedBy: nil)
    }

    /// Replaces a document's entry, recording no event.
    /// - Throws: As ``DocumentCatalog/update(_:recording:)``.
    @discardableResult
    public func update(_ document: DocumentRecord) async throws -> StoreEvent? {
        try await update(document, recording: nil)
    }

    /// Removes a document's entry, recording no event.
    /// - Throws: As ``DocumentCatalog/deleteDocument(_:recording:)``.
    @discardableResult
    public func deleteDocument(_ id: DocumentID) async throws -> StoreEvent? {
        try await deleteDocument(id, recording: nil)
    }
}

extension EventLog {
    /// The events with an id greater than `id`, oldest first, at most 1,000 of them.
    /// - Throws: As ``EventLog/events(after:limit:)``.
    public func events(after id: Int64) async throws -> [StoreEvent] {
        try await events(after: id, limit: 1000)
    }
}
