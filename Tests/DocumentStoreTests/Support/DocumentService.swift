import DocumentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// The committed PDFs in `Fixtures/`.
enum Fixture {
    static func url(_ name: String) -> URL { packageRoot.appendingPathComponent("Fixtures/\(name)") }
    static func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }
}

/// A store over a fresh directory, with a root for registered files, tested through its router.
struct DocumentService {
    let directory: TemporaryDirectory
    let root: URL
    let library: DocumentLibrary
    let catalog: Catalog
    var configuration: StoreConfiguration
    let app: Application<RouterResponder<StoreRequestContext>>
    /// The router's routes, as `"get /documents/{id}"` (method lowercased, path as OpenAPI writes it).
    let routes: [String]

    init(
        maxOpenDocuments: Int = 64, token: String? = nil, pdfDeadline: Duration = .seconds(10), pdfWorkers: Int = 2,
        pdfWorkerExecutable: String? = nil, pdfMemoryMiB: Int = 2048
    ) throws {
        directory = try TemporaryDirectory()
        let base = directory.url.resolvingSymlinksInPath()
        root = base.appendingPathComponent("root", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        configuration = StoreConfiguration(
            storeDirectory: base.appendingPathComponent("store"), port: 0, maxOpenDocuments: maxOpenDocuments,
            token: token, roots: [root])
        configuration.pdfDeadline = pdfDeadline
        configuration.pdfWorkers = pdfWorkers
        configuration.pdfWorkerExecutable = pdfWorkerExecutable
        configuration.pdfMemoryMiB = pdfMemoryMiB
        catalog = try Catalog(storeDirectory: configuration.storeDirectory)
        var logger = Logger(label: "quire.test")
        logger.logLevel = .critical
        let metrics = StoreMetrics()
        library = try DocumentLibrary(catalog: catalog, configuration: configuration, metrics: metrics, logger: logger)
        let router = buildRouter(
            configuration: configuration, catalog: catalog, metrics: metrics,
            controllers: documentControllers(library: library, configuration: configuration),
            requestLogLevel: .trace)
        routes = router.routes.map { "\($0.method.rawValue.lowercased()) \($0.path)" }
        app = Application(router: router, logger: logger)
    }

    /// Runs `body` with a router client, then shuts the library down and removes the directory.
    func run(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        do {
            try await app.test(.router) { client in try await body(client) }
        } catch {
            await library.shutdown()
            directory.remove()
            throw error
        }
        await library.shutdown()
        directory.remove()
    }

    /// Copies a fixture under the root.
    @discardableResult
    func place(_ fixture: String, as name: String? = nil) throws -> URL {
        let url = root.appendingPathComponent(name ?? fixture)
        try Fixture.data(fixture).write(to: url)
        return url
    }

    /// The events recorded after `id`.
    func events(after id: Int64 = 0) async throws -> [StoreEvent] {
        try await catalog.events(after: id)
    }

    /// Waits (bounded) until an event of `type` for `document` is in the log after `id`; returns it.
    func waitForEvent(_ type: StoreEvent.EventType, of document: String, after id: Int64 = 0, seconds: Double = 10)
        async throws -> StoreEvent?
    {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let event = try await events(after: id).first(where: {
                $0.type == type && $0.documentID.rawValue == document
            }) {
                return event
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

extension TestClientProtocol {
    /// Uploads a fixture; returns the response.
    func upload(_ fixture: String, password: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/pdf"]
        if let password { headers[HTTPField.Name("X-Document-Password")!] = password }
        return try await execute(
            uri: "/documents", method: .post, headers: headers, body: ByteBuffer(bytes: try Fixture.data(fixture)))
    }

    /// Sends JSON.
    func send(_ uri: String, _ method: HTTPRequest.Method, json: String, headers: HTTPFields = [:]) async throws
        -> TestResponse
    {
        var all = headers
        if all[.contentType] == nil { all[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: all, body: ByteBuffer(string: json))
    }
}

/// The JSON object of a response body.
func jsonObject(_ response: TestResponse) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
}
