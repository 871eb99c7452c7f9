import PostgresNIO

/// What serializes the operations on one document (and the registrations) beyond this node's lanes.
protocol DocumentLocks: Sendable {
    /// Runs `body` while holding the lock named `key`.
    /// - Throws: What `body` throws; ``StoreError/unavailable(_:retryAfterSeconds:)`` when the lock cannot be had in time.
    func withLock<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T
}

/// One node: its lanes are the whole story.
struct LocalDocumentLocks: DocumentLocks {
    func withLock<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T {
        try await body()
    }
}

/// A cluster: a session-level advisory lock of the shared PostgreSQL (`pg_advisory_lock` on a 64-bit hash of the
/// key), held on a connection of its own for the operation's length, so that an edit, a save, an external
/// change's handling and a resolution of one document never interleave across the nodes, and `If-Match` means on
/// every node what it means on one. A lock not had within `timeout` (another node's operation on the document is
/// that slow, or the database is unreachable) is ``StoreError/unavailable(_:retryAfterSeconds:)`` with a retry
/// hint of one second. A node that dies loses its locks with its connections.
struct AdvisoryDocumentLocks: DocumentLocks {
    let client: PostgresClient
    let timeout: Duration

    func withLock<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T {
        let milliseconds = max(1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return try await client.withConnection { connection in
            do {
                try await connection.query(PostgresQuery(unsafeSQL: "SET lock_timeout = \(milliseconds)"), logger: Self.logger)
                try await connection.query(
                    "SELECT pg_advisory_lock(hashtextextended(\(key), 7317526900))", logger: Self.logger)
            } catch let error as PSQLError {
                throw StoreError.unavailable(
                    "the \(key) is busy on another node, or the database does not answer: "
                        + PostgresCatalog.reason(error),
                    retryAfterSeconds: 1)
            }
            do {
                let value = try await body()
                _ = try? await connection.query(
                    "SELECT pg_advisory_unlock(hashtextextended(\(key), 7317526900))", logger: Self.logger)
                return value
            } catch {
                _ = try? await connection.query(
                    "SELECT pg_advisory_unlock(hashtextextended(\(key), 7317526900))", logger: Self.logger)
                throw error
            }
        }
    }

    private static let logger = Logger(label: "quire.locks")
}
