import Foundation
import Logging
import PostgresNIO

extension PostgresCatalog {
    /// ``open(client:location:deadline:logger:)`` for the database at `address`, through `client` (made from
    /// `address.clientConfiguration`). When the database gives no answer within the deadline, one direct
    /// connection to `address` says why, so that the error names the cause: a refused connection, a TLS
    /// handshake or certificate that failed (`sslmode`, `sslrootcert`), a password, a missing database. (The
    /// client's pool retries a failing connection without telling its waiters why.)
    /// - Throws: ``CatalogError/cannotOpen(path:reason:)``, as ``open(client:location:deadline:logger:)`` does,
    ///   with the cause found.
    public static func open(
        client: PostgresClient, address: DatabaseAddress, deadline: Duration = .seconds(10), logger: Logger
    ) async throws(CatalogError) -> PostgresCatalog {
        do {
            return try await open(client: client, location: address.description, deadline: deadline, logger: logger)
        } catch .cannotOpen(let path, let reason) {
            guard let cause = await connectionFailure(address, timeout: .seconds(5), logger: logger) else {
                throw .cannotOpen(path: path, reason: reason)
            }
            throw .cannotOpen(path: path, reason: "\(reason); one connection says: \(cause)")
        }
    }

    /// Why one connection to `address` fails (nil when it succeeds), in one line.
    static func connectionFailure(_ address: DatabaseAddress, timeout: Duration, logger: Logger) async -> String? {
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch address.tlsSettings {
            case nil: tls = .disable
            case (true, let settings)?: tls = .require(try NIOSSLContext(configuration: settings))
            case (false, let settings)?: tls = .prefer(try NIOSSLContext(configuration: settings))
            }
        } catch {
            return "TLS cannot be set up: \(error)"
        }
        var configuration = PostgresConnection.Configuration(
            host: address.host, port: address.port, username: address.user, password: address.password,
            database: address.database, tls: tls)
        configuration.options.connectTimeout = .nanoseconds(
            timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        var quiet = logger
        quiet.logLevel = .critical
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: quiet)
            try? await connection.close()
            return nil
        } catch {
            let reason = Self.reason(error)
            guard address.tlsMode != .disable, reason.contains("SSL") || reason.contains("TLS") || reason.contains("certificate")
            else { return reason }
            return "the TLS connection failed (sslmode=\(address.tlsMode.rawValue)): \(reason)"
        }
    }
}
