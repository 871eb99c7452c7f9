import DocumentStore
import NIOCore
import QuireCommandLine

#if canImport(Glibc)
    import Glibc
#endif

/// How `quire serve` reports a failure to start or to keep serving: one line and its exit code.
enum ServiceFailure {
    /// The failure for an error of building the service: another service holds the store (75), or its store
    /// directory or catalog cannot be opened (73).
    static func storeFailure(_ error: any Error, configuration: StoreConfiguration) -> CommandFailure {
        if let lock = error as? StoreLockError, case .inUse = lock {
            return CommandFailure(lock.description, exitCode: CommandFailure.temporaryFailure)
        }
        let reason =
            (error as? CatalogError).map(String.init(describing:))
            ?? (error as? StoreLockError).map(String.init(describing:)) ?? error.localizedDescription
        return CommandFailure(
            "cannot open the store \(configuration.storeDirectory.path): \(reason)",
            exitCode: CommandFailure.cannotCreate)
    }

    /// The failure for an error of running the service: the address cannot be bound (69), anything else (70).
    static func failure(_ error: any Error, configuration: StoreConfiguration) -> CommandFailure {
        if let failure = error as? CommandFailure { return failure }
        let address = url(host: configuration.host, port: configuration.port)
        if let io = error as? IOError {
            let reason = String(cString: strerror(io.errnoCode)).lowercased()
            return CommandFailure(
                "cannot listen on \(address) (\(reason)): choose another --port or --host",
                exitCode: CommandFailure.unavailable)
        }
        if error is SocketAddressError {
            return CommandFailure(
                "cannot listen on \(address) (\(error)): choose another --host", exitCode: CommandFailure.unavailable)
        }
        return CommandFailure("the service stopped: \(error)", exitCode: CommandFailure.software)
    }

    /// `http://HOST:PORT`, with an IPv6 address in brackets.
    static func url(host: String, port: Int) -> String {
        let printedHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "http://\(printedHost):\(port)"
    }
}
