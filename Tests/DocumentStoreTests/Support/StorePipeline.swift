import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import DocumentStore

extension BareLibrary {
    /// Runs a live service over the library on the service's own HTTP/1 pipeline (HTTP versions, answer backlog,
    /// connection deadlines, content fast path) with every route; `body` gets its port.
    func withLiveService(_ body: @escaping @Sendable (_ port: Int) async throws -> Void) async throws {
        let router = buildRouter(
            configuration: configuration, catalog: catalog, metrics: metrics,
            controllers: documentControllers(library: library, configuration: configuration))
        var logger = Logger(label: "quire.test")
        logger.logLevel = .critical
        let app = Application(
            router: router,
            server: .store(library: library, metrics: metrics, logger: logger, logLevel: .debug, serverName: "quire"),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        try await app.test(.live) { client in try await body(try #require(client.port)) }
    }
}
