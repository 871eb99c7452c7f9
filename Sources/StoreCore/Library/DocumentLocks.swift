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
/// change's handling and a resolution of one document never interleave across the nodes, and a write's
/// precondition means on every node what it means on one. A lock not had within `timeout` (another node's
/// operation on the document is that slow, or the database is unreachable) is ``StoreError/unavailable(_:retryAfterSeconds:)`` with a retry
/// hint of one second. A node that dies loses its locks with its connections.
struct AdvisoryDocumentLocks: DocumentLocks {
    let client: PostgresClient
    let timeout: Duration

    /// Runs `body` holding the lock. The lock is taken by a child task that holds a connection of its own until
    /// `body` is over; the caller waits for it at most `timeout` and a second, however the time goes (waiting
    /// for a connection of the pool, which PostgresNIO does without end while the database restarts; the lock
    /// itself, bounded by `lock_timeout`; a connection that does not answer). `body` runs in the caller's task.
    func withLock<T: Sendable>(_ key: String, _ body: () async throws -> T) async throws -> T {
        let milliseconds = max(1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let client = client
        let (outcomes, outcome) = AsyncStream.makeStream(of: Result<Void, any Error>.self)
        let (releases, release) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            do {
                try await client.withConnection { connection in
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "SET lock_timeout = \(milliseconds)"), logger: Self.logger)
                    try await connection.query(
                        "SELECT pg_advisory_lock(hashtextextended(\(key), 7317526900))", logger: Self.logger)
                    outcome.yield(.success(()))
                    for await _ in releases { break }
                    _ = try? await connection.query(
                        "SELECT pg_advisory_unlock(hashtextextended(\(key), 7317526900))", logger: Self.logger)
                }
            } catch {
                outcome.yield(.failure(error))
            }
            outcome.finish()
        }
        let deadline = Task {
            try await Task.sleep(for: timeout + .seconds(1))
            outcome.yield(.failure(LockDeadlinePassed()))
        }
        var first: Result<Void, any Error> = .failure(CancellationError())
        for await result in outcomes {
            first = result
            break
        }
        deadline.cancel()
        if case .failure(let error) = first {
            // The holder lets the lock go at once if it gets it after all.
            release.finish()
            holder.cancel()
            if Task.isCancelled { throw CancellationError() }
            let reason = (error as? PSQLError).map(PostgresCatalog.reason) ?? "\(error)"
            throw StoreError.unavailable(
                "the \(key) is busy on another node, or the database does not answer: \(reason)",
                retryAfterSeconds: 1)
        }
        // The holder lets the lock go when `body` is over (a next operation on the document waits for that in
        // `pg_advisory_lock`; this one does not wait for an unlock that a dead connection could hold up).
        defer { release.finish() }
        return try await body()
    }

    private static let logger = Logger(label: "quire.locks")
}

/// The lock was not had within the timeout and a second.
private struct LockDeadlinePassed: Error, CustomStringConvertible {
    var description: String { "no lock within the timeout" }
}
