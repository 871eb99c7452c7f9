import Foundation
import PostgresNIO

/// Where a cluster's PostgreSQL is, and how to reach it:
/// `postgres://user[:password]@host[:port]/database[?sslmode=MODE[&sslrootcert=FILE]]` (or `postgresql://`),
/// percent-encoded as URLs are. The two parameters mean what they mean to libpq (`psql`): `sslmode` is
/// `disable`, `prefer` (the default: TLS when the server offers it, no certificate check), `require` (TLS or no
/// connection; the certificate is checked against `sslrootcert` when one is named, as libpq does, else not),
/// `verify-ca` (TLS, the server's certificate signed by a trusted authority) or `verify-full` (that, and the
/// certificate names the host); `sslrootcert` is a PEM file of the trusted authorities (the system's when
/// absent). Any other parameter is refused rather than ignored.
public struct DatabaseAddress: Sendable, Hashable, CustomStringConvertible {
    /// How the connection to the server is protected (libpq's `sslmode`).
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, without checking its certificate; else in clear.
        case prefer
        /// TLS or no connection; the certificate is checked only against a named ``DatabaseAddress/rootCertificateFile``.
        case require
        /// TLS, with a certificate signed by a trusted authority (any host name).
        case verifyCA = "verify-ca"
        /// TLS, with a certificate signed by a trusted authority for the host named in the URL.
        case verifyFull = "verify-full"
    }

    /// Why a URL is not a PostgreSQL address.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// One line: what is wrong with the URL (never its password).
        public let description: String
    }

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
    /// How the connection is protected (``TLSMode/prefer`` unless the URL says `sslmode=`).
    public var tlsMode: TLSMode = .prefer
    /// The PEM file of the certificate authorities the server's certificate must chain to (`sslrootcert=`); nil
    /// for the system's trusted authorities.
    public var rootCertificateFile: String?

    /// Parses a PostgreSQL URL; nil when it is not one (see ``parse(_:)`` for why).
    public init?(url text: String) {
        guard let address = try? Self.parse(text) else { return nil }
        self = address
    }

    private init(host: String, port: Int, user: String, password: String?, database: String) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// Parses a PostgreSQL URL.
    /// - Throws: ``ParseError`` naming what is wrong: another scheme, no user, host or database, a bad port, an
    ///   unknown `sslmode`, or a parameter other than `sslmode` and `sslrootcert`.
    public static func parse(_ text: String) throws(ParseError) -> DatabaseAddress {
        let shape = "must be a PostgreSQL URL, postgres://user[:password]@host[:port]/database"
        guard let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql",
            let host = components.host, !host.isEmpty,
            let user = components.user, !user.isEmpty
        else { throw ParseError(description: shape) }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw ParseError(description: shape) }
        if let port = components.port, !(1...65_535).contains(port) {
            throw ParseError(description: "has port \(port): a port is 1 to 65535")
        }
        var address = DatabaseAddress(
            host: host, port: components.port ?? 5432, user: user, password: components.password, database: database)
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    let modes = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ParseError(description: "has sslmode=\(item.value ?? ""): it must be one of \(modes)")
                }
                address.tlsMode = mode
            case "sslrootcert":
                guard let file = item.value, !file.isEmpty else {
                    throw ParseError(description: "has an empty sslrootcert: name a PEM file of trusted authorities")
                }
                address.rootCertificateFile = file
            default:
                throw ParseError(
                    description: "has the parameter \"\(item.name)\": only sslmode and sslrootcert are understood")
            }
        }
        return address
    }

    /// The address without its password, for logs, messages and `quire status` (with `sslmode` when it is not
    /// the default).
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)" + (tlsMode == .prefer ? "" : "?sslmode=\(tlsMode.rawValue)")
    }

    /// The TLS settings of ``clientConfiguration(connections:)``.
    public var tls: PostgresClient.Configuration.TLS {
        guard let (required, settings) = tlsSettings else { return .disable }
        return required ? .require(settings) : .prefer(settings)
    }

    /// Whether TLS is required and how it is set up; nil for no TLS.
    var tlsSettings: (required: Bool, TLSConfiguration)? {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let rootCertificateFile { tls.trustRoots = .file(rootCertificateFile) }
        switch tlsMode {
        case .disable:
            return nil
        case .prefer:
            tls.certificateVerification = .none
            return (false, tls)
        case .require:
            tls.certificateVerification = rootCertificateFile == nil ? .none : .noHostnameVerification
            return (true, tls)
        case .verifyCA:
            tls.certificateVerification = .noHostnameVerification
            return (true, tls)
        case .verifyFull:
            tls.certificateVerification = .fullVerification
            return (true, tls)
        }
    }

    /// The client configuration for this address (TLS as ``tlsMode`` says; a pool of at most `connections`).
    public func clientConfiguration(connections: Int = 16) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
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
