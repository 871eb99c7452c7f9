import DocumentStore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Reloading a running service's configuration")
struct ReloadTests {
    private static func configuration(_ directory: URL, token: String?, maxUploadBytes: Int = 100) -> StoreConfiguration {
        StoreConfiguration(storeDirectory: directory, port: 8080, maxUploadBytes: maxUploadBytes, token: token)
    }

    @Test("the keys that changed are named in the manual's order; only the token, upload limit and log level apply")
    func changedKeys() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let old = Self.configuration(directory.url, token: "one")
        var new = old
        new.port = 9090
        new.token = "two"
        new.maxUploadBytes = 200
        new.logLevel = .debug
        new.logFormat = .json
        #expect(old.changedKeys(to: new) == ["port", "maxUploadBytes", "token", "log.level", "log.format"])
        #expect(old.changedKeys(to: old).isEmpty)
        let control = ServiceControl(configuration: old)
        let outcome = control.reload(new)
        #expect(outcome.applied == ["maxUploadBytes", "token", "log.level"])
        #expect(outcome.needRestart == ["port", "log.format"])
        #expect(control.configuration.port == 8080)
        #expect(control.configuration.token == "two" && control.configuration.maxUploadBytes == 200)
    }

    @Test("a reloaded token guards the next request: set, changed, removed")
    func tokenFollowsReloads() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url
        let control = ServiceControl(configuration: Self.configuration(url, token: nil))
        let catalog = try Catalog(storeDirectory: url)
        let router = buildRouter(
            configuration: control.configuration, catalog: catalog, metrics: StoreMetrics(),
            controllers: [ProbeController()], control: control)
        try await Application(router: router).test(.router) { client async throws in
            #expect(try await Self.post(client, token: nil) == .ok)
            _ = control.reload(Self.configuration(url, token: "one"))
            #expect(try await Self.post(client, token: nil) == .unauthorized)
            #expect(try await Self.post(client, token: "one") == .ok)
            _ = control.reload(Self.configuration(url, token: "two"))
            #expect(try await Self.post(client, token: "one") == .unauthorized)
            #expect(try await Self.post(client, token: "two") == .ok)
            _ = control.reload(Self.configuration(url, token: nil))
            #expect(try await Self.post(client, token: nil) == .ok)
        }
    }

    /// The status of `POST /probe/echo` with `token`.
    private static func post(_ client: any TestClientProtocol, token: String?) async throws -> HTTPResponse.Status {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: "/probe/echo", method: .post, headers: headers).status
    }
}
