import DocumentStore
import Foundation
import GRDB
import Logging
import PostgresNIO
import QuireTestSupport
import Synchronization
import Testing

/// The catalog engines the conformance suite runs against.
enum CatalogEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// SQLite through GRDB (``Catalog``), the embedded default.
    case sqlite
    /// PostgreSQL through PostgresNIO (``PostgresCatalog``), on the tests' private server.
    case postgres

    var testDescription: String { rawValue }
}

/// A fresh, empty place for a catalog of one engine (a directory, or a new database), opened as often as a test
/// likes (each opening is a new connection, as after a restart); everything is closed and removed at the end.
final class CatalogPlace: Sendable {
    let engine: CatalogEngine
    private let directory: TemporaryDirectory
    private let database: String?
    private let server: PostgresServer?
    private let clients = Mutex<[(PostgresClient, Task<Void, Never>)]>([])
    private let sqliteCatalogs = Mutex<[Catalog]>([])

    private init(engine: CatalogEngine) async throws {
        self.engine = engine
        directory = try TemporaryDirectory()
        switch engine {
        case .sqlite:
            database = nil
            server = nil
        case .postgres:
            let server = try PostgresServer.shared()
            self.server = server
            database = try await server.createDatabase()
        }
    }

    /// The SQLite store directory (for the engine-specific tests).
    var storeDirectory: URL { directory.url.appendingPathComponent("store") }

    /// Opens the catalog in this place (a new connection each time).
    func open() async throws -> any CatalogDatabase {
        switch engine {
        case .sqlite:
            let catalog = try Catalog(storeDirectory: storeDirectory)
            sqliteCatalogs.withLock { $0.append(catalog) }
            return catalog
        case .postgres:
            let server = server!
            let client = PostgresClient(
                configuration: server.configuration(database: database!), backgroundLogger: Logger(label: "test"))
            let task = Task { await client.run() }
            clients.withLock { $0.append((client, task)) }
            return try await PostgresCatalog.open(
                client: client, location: "postgres://quire@127.0.0.1:\(server.port)/\(database!)",
                logger: Logger(label: "test"))
        }
    }

    /// Marks the place's schema as one a newer Quire wrote (a migration this build does not know).
    func pretendNewerSchema() async throws {
        switch engine {
        case .sqlite:
            let catalog = try Catalog(storeDirectory: storeDirectory)
            try catalog.close()
            let database = try DatabaseQueue(path: storeDirectory.appendingPathComponent("catalog.sqlite").path)
            try await database.write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99: from the future')") }
            try database.close()
        case .postgres:
            try await PostgresServer.withClient(server!.configuration(database: database!)) { client in
                _ = try await client.query("UPDATE quire_schema SET version = version + 1")
            }
        }
    }

    /// Runs `body` with a fresh place of `engine`, then closes what it opened and removes it.
    static func with(_ engine: CatalogEngine, _ body: (CatalogPlace) async throws -> Void) async throws {
        let place = try await CatalogPlace(engine: engine)
        do {
            try await body(place)
        } catch {
            await place.close()
            throw error
        }
        await place.close()
    }

    private func close() async {
        for catalog in sqliteCatalogs.withLock({ $0 }) { try? catalog.close() }
        for (_, task) in clients.withLock({ $0 }) {
            task.cancel()
            await task.value
        }
        directory.remove()
    }
}
