import FileCoordination
import Foundation
import Logging
import PostgresNIO

/// Reads every key from the layers and checks it: each rule below is what "valid" means for its key, and each
/// failure is a ``ConfigurationError/invalidValue(key:value:source:reason:)`` naming the value's source.
struct ConfigurationValidator {
    let layers: ConfigurationLayers
    let workingDirectory: URL

    /// The largest DPI a configuration may allow: an A4 page at 1200 DPI is already a 140-megapixel image.
    static let dpiLimit = 1200

    func configuration() throws(ConfigurationError) -> StoreConfiguration {
        var configuration = StoreConfiguration(
            storeDirectory: try storeDirectory(),
            host: try host(),
            port: try bounded(.port, 0...65_535, "a port number from 0 (any free port) to 65535"),
            coordinationScope: try coordinationScope(),
            maxUploadBytes: try bounded(.maxUploadBytes, 1...Int.max, "a positive number of bytes"),
            maxOpenDocuments: try bounded(.maxOpenDocuments, 1...Int.max, "a positive number"),
            maxDPI: try bounded(.maxDPI, 1...Self.dpiLimit, "a DPI from 1 to \(Self.dpiLimit)"),
            uploadBudgetBytes: try bounded(.uploadBudgetBytes, 1...Int.max, "a positive number of bytes"),
            headerTimeout: .seconds(try bounded(.headerTimeoutSeconds, 1...3600, "a number of seconds from 1 to 3600")),
            idleTimeout: .seconds(try bounded(.idleTimeoutSeconds, 1...86_400, "a number of seconds from 1 to 86400")),
            maxConnections: try bounded(.maxConnections, 1...1_000_000, "a number of connections from 1 to 1000000"),
            token: try token(),
            roots: try roots()
        )
        configuration.minBodyBytesPerSecond = try bounded(
            .minBodyBytesPerSecond, 0...1_073_741_824, "a number of bytes a second from 0 (no minimum) to 1073741824")
        configuration.bodyTimeout = .seconds(
            try bounded(.bodyTimeoutSeconds, 1...86_400, "a number of seconds from 1 to 86400"))
        configuration.pdfWorkers = try bounded(.pdfWorkers, 1...256, "a number of worker processes from 1 to 256")
        configuration.pdfDeadline = .seconds(
            try bounded(.pdfDeadlineSeconds, 1...3600, "a number of seconds from 1 to 3600"))
        configuration.pdfMemoryMiB = try bounded(.pdfMemoryMiB, 64...1_048_576, "a number of MiB from 64 to 1048576")
        configuration.database = try database()
        let check = try bounded(.contentCheckSeconds, 0...86_400, "a number of seconds from 0 (never) to 86400")
        configuration.contentCheckInterval = check == 0 ? nil : .seconds(check)
        configuration.logLevel = try logLevel()
        configuration.logFormat = try logFormat()
        func window(_ key: ConfigurationKey) throws(ConfigurationError) -> Duration {
            .microseconds(try bounded(key, 0...100_000, "a number of microseconds from 0 (no polling) to 100000"))
        }
        configuration.polling = StoreConfiguration.Polling(
            coordination: CoordinationPolling(
                waitingClient: try window(.coordinationPollMicroseconds),
                handOver: try window(.coordinationHandOverPollMicroseconds),
                host: try window(.coordinationHostPollMicroseconds)),
            workerReply: try window(.workersPollMicroseconds), workerIdle: try window(.workersIdlePollMicroseconds))
        return configuration
    }

    private func required<Value>(
        _ key: ConfigurationKey, _ value: ConfigurationLayers.Sourced<Value>?
    ) -> ConfigurationLayers.Sourced<Value> {
        // Every key but the token has a built-in default, so a missing value is a bug in this module.
        guard let value else { preconditionFailure("configuration key \(key.name) has no built-in default") }
        return value
    }

    private func invalid(
        _ key: ConfigurationKey, _ shown: String, _ source: ConfigurationSource, _ reason: String
    ) -> ConfigurationError {
        .invalidValue(key: key.name, value: shown, source: source, reason: reason)
    }

    private func bounded(
        _ key: ConfigurationKey, _ range: ClosedRange<Int>, _ expected: String
    ) throws(ConfigurationError) -> Int {
        let found = required(key, try layers.int(key))
        guard range.contains(found.value) else {
            throw invalid(key, String(found.value), found.source, "must be \(expected)")
        }
        return found.value
    }

    private func storeDirectory() throws(ConfigurationError) -> URL {
        let found = required(.store, try layers.string(.store))
        guard !found.value.isEmpty else { throw invalid(.store, "\"\"", found.source, "must be a directory path") }
        let url = URL(fileURLWithPath: found.value, isDirectory: true, relativeTo: workingDirectory)
            .absoluteURL.standardizedFileURL
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw invalid(.store, "\"\(found.value)\"", found.source, "exists and is not a directory")
        }
        return url
    }

    private func host() throws(ConfigurationError) -> String {
        let found = required(.host, try layers.string(.host))
        guard Self.isIPAddress(found.value) || Self.isHostName(found.value) else {
            throw invalid(.host, "\"\(found.value)\"", found.source, "must be an IP address or a host name")
        }
        return found.value
    }

    private func coordinationScope() throws(ConfigurationError) -> StoreConfiguration.CoordinationScope {
        let found = required(.coordinationScope, try layers.string(.coordinationScope))
        guard let scope = StoreConfiguration.CoordinationScope(rawValue: found.value) else {
            throw invalid(.coordinationScope, "\"\(found.value)\"", found.source, "must be \"user\" or \"process\"")
        }
        return scope
    }

    /// One of swift-log's levels, in any case.
    private func logLevel() throws(ConfigurationError) -> Logger.Level {
        let found = required(.logLevel, try layers.string(.logLevel))
        guard let level = Logger.Level(rawValue: found.value.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw invalid(.logLevel, "\"\(found.value)\"", found.source, "must be one of \(names)")
        }
        return level
    }

    private func logFormat() throws(ConfigurationError) -> StoreConfiguration.LogFormat {
        let found = required(.logFormat, try layers.string(.logFormat))
        guard let format = StoreConfiguration.LogFormat(rawValue: found.value.lowercased()) else {
            throw invalid(.logFormat, "\"\(found.value)\"", found.source, "must be \"text\" or \"json\"")
        }
        return format
    }

    /// RFC 6750 `b64token`: the characters a bearer token can carry in an `Authorization` header.
    private func token() throws(ConfigurationError) -> String? {
        guard let found = try layers.string(.token) else { return nil }
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/")
        let body = found.value.prefix(while: { $0 != "=" })
        let padding = found.value.dropFirst(body.count)
        guard !body.isEmpty, padding.allSatisfy({ $0 == "=" }), body.unicodeScalars.allSatisfy(allowed.contains) else {
            let reason = "must be a non-empty bearer token of letters, digits and -._~+/ (unset it to disable tokens)"
            throw invalid(.token, "<redacted>", found.source, reason)
        }
        return found.value
    }

    /// A PostgreSQL URL (cluster mode), or nil (one node on SQLite).
    private func database() throws(ConfigurationError) -> DatabaseAddress? {
        guard let found = try layers.string(.database) else { return nil }
        let address: DatabaseAddress
        do {
            address = try DatabaseAddress.parse(found.value)
        } catch {
            throw invalid(
                .database, "\"\(DatabaseAddress.redacting(found.value))\"", found.source,
                "\(error.description) (unset it for one node)")
        }
        if let file = address.rootCertificateFile {
            // Checked here, so that a wrong path is one line at start-up, not a connection failure later.
            guard (try? NIOSSLCertificate.fromPEMFile(file))?.isEmpty == false else {
                throw invalid(
                    .database, "\"\(DatabaseAddress.redacting(found.value))\"", found.source,
                    "names sslrootcert=\(file), which is not a readable PEM file of certificates")
            }
        }
        return address
    }

    /// Each root must be an existing directory; it is kept absolute with symbolic links resolved.
    private func roots() throws(ConfigurationError) -> [URL] {
        let found = required(.roots, try layers.strings(.roots))
        var roots: [URL] = []
        for path in found.value where !path.isEmpty {
            let url = URL(fileURLWithPath: path, isDirectory: true, relativeTo: workingDirectory)
                .absoluteURL.standardizedFileURL
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue,
                let resolved = Self.realPath(url.path)
            else {
                throw invalid(.roots, "\"\(path)\"", found.source, "must be an existing directory")
            }
            let root = URL(fileURLWithPath: resolved, isDirectory: true)
            if !roots.contains(root) { roots.append(root) }
        }
        return roots
    }

    static func isIPAddress(_ string: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, string, &address) == 1 || inet_pton(AF_INET6, string, &address) == 1
    }

    /// RFC 1123 host names: dot-separated labels of letters, digits and hyphens, at most 253 characters.
    static func isHostName(_ string: String) -> Bool {
        guard !string.isEmpty, string.utf8.count <= 253 else { return false }
        return string.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    /// The path with every symbolic link resolved (`realpath(3)`), or nil when it cannot be resolved.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
