import Foundation
import PostgresNIO

/// Where a cluster's PostgreSQL is: `postgres://user[:password]@host[:port]/database` (or `postgresql://`),
/// percent-encoded as URLs are. No TLS: run the database on a trusted network or through a local tunnel (the
/// README says so).
public struct DatabaseAddress: Sendable, Hashable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// Its port (5432 unless the URL names one).
    public var port: Int
    /// The user the node connects as.
    public var user: String
    /// That user's password, if the server asks for one.
    public var password: String?
    /// The database.
    public var database: String

    /// Parses a PostgreSQL URL; nil when it is not one (another scheme, no user, host or database, a bad port).
    public init?(url text: String) {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql",
            let host = components.host, !host.isEmpty,
            let user = components.user, !user.isEmpty
        else { return nil }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { return nil }
        if let port = components.port, !(1...65_535).contains(port) { return nil }
        self.host = host
        self.port = components.port ?? 5432
        self.user = user
        self.password = components.password
        self.database = database
    }

    /// The address without its password, for logs, messages and `quire status`.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// The client configuration for this address (TLS off; a pool of at most `connections`).
    public func clientConfiguration(connections: Int = 16) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
        configuration.options.maximumConnections = max(2, connections)
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    /// `text` with the password of a URL replaced by `***`, for messages about a value that did not parse.
    static func redacting(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "<redacted>"
    }
}
