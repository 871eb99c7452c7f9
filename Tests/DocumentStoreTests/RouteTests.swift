import DocumentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Routes that stand in for the document routes: one per way a handler can end.
struct ProbeController: RouteController {
    struct Unexpected: Error {}
    struct Payload: Decodable { let name: String }

    var mountPath: RouterPath { "/probe" }

    var routes: RouteCollection<StoreRequestContext> {
        let routes = RouteCollection(context: StoreRequestContext.self)
        routes.get("unexpected") { _, _ -> String in throw Unexpected() }
        routes.get("http-error") { _, _ -> String in throw HTTPError(.conflict, message: "taken") }
        routes.get("problem") { _, _ -> String in throw ProblemDetails.ifMatchRequired("send If-Match") }
        routes.post("echo") { _, _ in "changed" }
        routes.delete("echo") { _, _ in "deleted" }
        routes.post("json") { request, context in try await request.decode(as: Payload.self, context: context).name }
        return routes
    }
}

@Suite("Service routes")
struct RouteTests {
    /// Runs `test` against the router built for `configuration` (token and all) over a fresh store.
    static func withRouter(
        token: String? = nil,
        _ test: @escaping @Sendable (any TestClientProtocol, StoreMetrics) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = StoreConfiguration(storeDirectory: directory.url, token: token)
        let catalog = try Catalog(storeDirectory: directory.url)
        let metrics = StoreMetrics()
        let router = buildRouter(
            configuration: configuration, catalog: catalog, metrics: metrics, controllers: [ProbeController()])
        let app = Application(router: router)
        try await app.test(.router) { client in try await test(client, metrics) }
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    @Test("GET /health answers ok with the last event id, and a request id")
    func health() async throws {
        try await Self.withRouter { client, _ in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            #expect(String(buffer: response.body) == #"{"lastEventId":0,"status":"ok"}"#)
            #expect(response.headers[.requestID]?.isEmpty == false)
            let head = try await client.execute(uri: "/health", method: .head)
            #expect(head.status == .ok)
        }
    }

    @Test("GET /metrics is Prometheus text with the requests counted by route, method and status")
    func metrics() async throws {
        try await Self.withRouter { client, _ in
            _ = try await client.execute(uri: "/health", method: .get)
            _ = try await client.execute(uri: "/nowhere", method: .get)
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
            let text = String(buffer: response.body)
            #expect(text.contains(#"quire_http_requests_total{route="/health",method="GET",status="200"} 1"#))
            #expect(text.contains(#"quire_http_requests_total{route="NotFound",method="GET",status="404"} 1"#))
            #expect(text.contains("quire_http_request_duration_seconds_bucket"))
            #expect(text.contains("quire_open_documents 0"))
            #expect(text.contains("quire_conflicts 0"))
        }
    }

    @Test("the metrics for events and coordination waits appear once recorded")
    func storeMetrics() {
        let metrics = StoreMetrics()
        metrics.recordEvent(.changed)
        metrics.recordEvent(.changed)
        metrics.recordCoordinationWait(.milliseconds(3))
        metrics.openDocuments.record(5)
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains(#"quire_events_total{type="changed"} 2"#))
        #expect(text.contains(#"quire_coordination_wait_seconds_bucket{le="0.005"} 1"#))
        #expect(text.contains("quire_open_documents 5"))
    }

    @Test("GET /openapi.yaml serves the repository's openapi.yaml")
    func openAPI() async throws {
        let onDisk = try Data(contentsOf: packageRoot.appendingPathComponent("openapi.yaml"))
        try await Self.withRouter { client, _ in
            let response = try await client.execute(uri: "/openapi.yaml", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/yaml")
            #expect(Data(buffer: response.body) == onDisk)
        }
    }

    @Test("an unknown route is a 404 problem naming method and path")
    func unknownRoute() async throws {
        try await Self.withRouter { client, _ in
            let response = try await client.execute(uri: "/documents", method: .get)
            #expect(response.status == .notFound)
            #expect(response.headers[.contentType] == "application/problem+json")
            let problem = try Self.json(response)
            #expect(problem["status"] as? Int == 404)
            #expect(problem["detail"] as? String == "no route for GET /documents")
            #expect(problem["instance"] as? String == "/documents")
        }
    }

    @Test("every kind of error leaves as problem details: unexpected (500), Hummingbird's, the service's own")
    func errorsAreProblems() async throws {
        try await Self.withRouter { client, _ in
            let unexpected = try await client.execute(uri: "/probe/unexpected", method: .get)
            #expect(unexpected.status == .internalServerError)
            #expect(unexpected.headers[.contentType] == "application/problem+json")
            let internalProblem = try Self.json(unexpected)
            #expect(internalProblem["requestId"] as? String == unexpected.headers[.requestID])
            #expect((internalProblem["detail"] as? String)?.contains("Unexpected") == false)

            let httpError = try await client.execute(uri: "/probe/http-error", method: .get)
            #expect(httpError.status == .conflict)
            #expect(try Self.json(httpError)["detail"] as? String == "taken")

            let problem = try await client.execute(uri: "/probe/problem", method: .get)
            #expect(problem.status == .preconditionRequired)
            #expect(try Self.json(problem)["type"] as? String == "/problems/if-match-required")

            let malformed = try await client.execute(
                uri: "/probe/json", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{\"name\":"))
            #expect(malformed.status == .badRequest)
            #expect(malformed.headers[.contentType] == "application/problem+json")

            let tooLarge = try await client.execute(
                uri: "/probe/json", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: "{\"name\":\"" + String(repeating: "x", count: 2 << 20) + "\"}"))
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.headers[.contentType] == "application/problem+json")
        }
    }

    @Test("without a configured token, mutating routes are open")
    func noToken() async throws {
        try await Self.withRouter { client, _ in
            let response = try await client.execute(uri: "/probe/echo", method: .post)
            #expect(response.status == .ok)
        }
    }

    @Test("with a token, mutating requests need Authorization: Bearer with it; reads do not")
    func bearerToken() async throws {
        try await Self.withRouter(token: "s3cret") { client, _ in
            let missing = try await client.execute(uri: "/probe/echo", method: .post)
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.wwwAuthenticate] == #"Bearer realm="quire""#)
            #expect(missing.headers[.contentType] == "application/problem+json")

            for wrong in ["Bearer nope", "Basic czNjcmV0", "Bearer", "Bearer s3cret2", "s3cret"] {
                let response = try await client.execute(
                    uri: "/probe/echo", method: .delete, headers: [.authorization: wrong])
                #expect(response.status == .unauthorized, "\(wrong)")
                #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="quire", error="invalid_token""#)
            }
            for right in ["Bearer s3cret", "bearer  s3cret "] {
                let response = try await client.execute(
                    uri: "/probe/echo", method: .post, headers: [.authorization: right])
                #expect(response.status == .ok, "\(right)")
                #expect(String(buffer: response.body) == "changed")
            }
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
            // A mutating request to an unknown route is refused before it can learn the route does not exist.
            #expect(try await client.execute(uri: "/nowhere", method: .put).status == .unauthorized)
        }
    }
}
