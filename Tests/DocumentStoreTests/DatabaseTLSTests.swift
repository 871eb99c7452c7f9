import DocumentStore
import Foundation
import Logging
import PostgresNIO
import QuireTestSupport
import Testing

/// `sslmode` and `sslrootcert` of a cluster's database URL against a real PostgreSQL with TLS on (a certificate
/// for `localhost` signed by an authority of the test's own): what libpq users expect of each mode.
@Suite("Database TLS")
struct DatabaseTLSTests {
    /// The test's TLS server and one database on it.
    static let server = Result { try PostgresServer.makePrivate(tls: true) }

    /// The address of `database` on the TLS server at `host`, with `parameters` after `?`.
    static func address(_ server: PostgresServer, database: String, host: String, _ parameters: String) throws
        -> DatabaseAddress
    {
        try DatabaseAddress.parse("postgres://\(server.user)@\(host):\(server.port)/\(database)?\(parameters)")
    }

    /// Whether the session through `address` is encrypted, by the server's own account (`pg_stat_ssl`), after the
    /// catalog opened (and migrated) through it.
    static func encrypted(_ address: DatabaseAddress) async throws -> Bool {
        var configuration = address.clientConfiguration(connections: 2)
        configuration.options.connectTimeout = .seconds(3)
        return try await PostgresServer.withClient(configuration) { client in
            _ = try await PostgresCatalog.open(
                client: client, address: address, deadline: .seconds(5), logger: Logger(label: "test"))
            let rows = try await client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            for try await ssl in rows.decode(Bool.self) { return ssl }
            return false
        }
    }

    @Test("require, verify-ca with the authority, and verify-full for the certificate's host name are encrypted")
    func encryptedModes() async throws {
        let server = try Self.server.get()
        let database = try await server.createDatabase()
        let authority = "sslrootcert=\(server.certificateAuthorityFile)"
        #expect(try await Self.encrypted(Self.address(server, database: database, host: "127.0.0.1", "sslmode=require")))
        #expect(try await Self.encrypted(Self.address(server, database: database, host: "127.0.0.1", "sslmode=prefer")))
        #expect(
            try await Self.encrypted(
                Self.address(server, database: database, host: "127.0.0.1", "sslmode=verify-ca&\(authority)")))
        #expect(
            try await Self.encrypted(
                Self.address(server, database: database, host: "localhost", "sslmode=verify-full&\(authority)")))
        // The default is prefer: encrypted when the server offers it.
        #expect(try await Self.encrypted(DatabaseAddress.parse(server.url(database: database))))
        #expect(try await !Self.encrypted(Self.address(server, database: database, host: "127.0.0.1", "sslmode=disable")))
    }

    @Test("a certificate from another authority, or for another host name under verify-full, is refused in one line")
    func refusedCertificates() async throws {
        let server = try Self.server.get()
        let database = try await server.createDatabase()
        let cases = [
            ("localhost", "sslmode=verify-full&sslrootcert=\(server.otherAuthorityFile)"),
            ("127.0.0.1", "sslmode=verify-ca&sslrootcert=\(server.otherAuthorityFile)"),
            ("127.0.0.1", "sslmode=require&sslrootcert=\(server.otherAuthorityFile)"),
            // Signed by the right authority, but for localhost only.
            ("127.0.0.1", "sslmode=verify-full&sslrootcert=\(server.certificateAuthorityFile)"),
        ]
        let started = ContinuousClock.now
        // At once: each waits for the catalog's deadline while the pool retries the handshake.
        let outcomes = try await withThrowingTaskGroup(of: (String, Result<Bool, any Error>).self) { group in
            for (host, parameters) in cases {
                let address = try Self.address(server, database: database, host: host, parameters)
                group.addTask {
                    do {
                        return ("\(parameters) at \(host)", .success(try await Self.encrypted(address)))
                    } catch {
                        return ("\(parameters) at \(host)", .failure(error))
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(outcomes.count == cases.count)
        for (name, outcome) in outcomes {
            guard case .failure(let error as CatalogError) = outcome else {
                Issue.record("\(name): \(outcome), not a CatalogError")
                continue
            }
            #expect(!error.description.contains("\n"), "\(name): \(error)")
            #expect(error.description.lowercased().contains("certificate"), "\(name): \(error)")
        }
    }

    @Test("require against a server without TLS is refused; prefer connects in clear")
    func serverWithoutTLS() async throws {
        let server = try PostgresServer.shared()
        let database = try await server.createDatabase()
        let clear = try Self.address(server, database: database, host: "127.0.0.1", "sslmode=prefer")
        #expect(try await !Self.encrypted(clear))
        let required = try Self.address(server, database: database, host: "127.0.0.1", "sslmode=require")
        await #expect(throws: CatalogError.self) { _ = try await Self.encrypted(required) }
    }
}
