import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@testable import StoreClient

/// StoreClient's calls through the client swift-openapi-generator made from openapi.yaml: what reaches the
/// service (validators as given), and what an error answer becomes (one `StoreClientError`), against a real
/// `quire serve` and, for what a service does not send, against ``ClientEdge`` alone.
@Suite("StoreClient: calls through the generated client")
struct StoreClientCallTests {
    @Test("A write names its validator as given: a stale one is a versionMismatch naming the current one, the current one succeeds")
    func validatorsGoAsGiven() async throws {
        try await Self.withUploadedPage { client, uploaded in
            await #expect {
                try await client.delete(uploaded.id, ifMatch: #""0000-0""#)
            } throws: { error in
                let error = try #require(error as? StoreClientError)
                return error.code == .versionMismatch && error.currentEtag == uploaded.etag
                    && error.currentVersion == uploaded.version
            }
            try await client.delete(uploaded.id, ifMatch: uploaded.etag)
            await #expect {
                try await client.content(of: uploaded.id)
            } throws: { error in
                (error as? StoreClientError)?.problem?.status == 404
            }
        }
    }

    @Test("Error answers arrive as the service's problem: a page that does not exist, a resolution above the limit")
    func problemsArriveAsProblems() async throws {
        try await Self.withUploadedPage { client, uploaded in
            await #expect {
                try await client.pageText(of: uploaded.id, page: 9)
            } throws: { error in
                (error as? StoreClientError)?.problem?.status == 404
            }
            await #expect {
                try await client.pageImage(of: uploaded.id, page: 1, dpi: 100_000)
            } throws: { error in
                let problem = (error as? StoreClientError)?.problem
                return problem?.status == 400 && problem?.parameter == "dpi"
            }
            let versions = try await client.versions(of: uploaded.id)
            let report = try await client.conflict(of: uploaded.id)
            let health = try await client.health()
            #expect(versions.isEmpty && report.conflict == nil && health.status == .ok)
        }
    }

    @Test("Registering the same files again answers the document they make up (200); edits, a save and a PUT answer its info")
    func registerEditSaveReplace() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let file = try sandbox.copyFixture("one-page.pdf", as: "report.pdf")
        let first = try await client.register(files: [file])
        let again = try await client.register(files: [file])
        #expect(again.id == first.id && again.origin == .registered && again.version == first.version)
        let titled = try await client.updateMetadata(
            of: first.id, DocumentMetadata(title: "Quarterly"), ifMatch: first.etag)
        #expect(titled.state == .dirty && titled.metadata.title == "Quarterly" && titled.version == first.version + 1)
        let noted = try await client.addAnnotation(
            to: first.id, AnnotationRequest(kind: .note, page: 1, rect: .init(x: 10, y: 10, width: 20, height: 20)),
            ifMatch: titled.etag)
        let saved = try await client.save(first.id, ifMatch: noted.etag)
        #expect(saved.state == .clean && saved.metadata.title == "Quarterly" && saved.conflictType == nil)
        let replacement = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("page-labels.pdf")))
        let replaced = try await client.replaceContent(of: first.id, with: replacement, ifMatch: saved.etag)
        #expect(replaced.files.first?.size == replacement.count && replaced.version > saved.version)
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    /// Runs `body` with a client of a new `quire serve` into which one-page.pdf was uploaded, then stops both.
    private static func withUploadedPage(_ body: (StoreClient, DocumentInfo) async throws -> Void) async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        try await body(client, try await client.upload(pdf: bytes))
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("Nothing listening is unreachable, with the connection refused")
    func nothingListening() async throws {
        let client = try StoreClient(server: "http://127.0.0.1:1")
        await #expect {
            try await client.documentPage()
        } throws: { error in
            let error = try #require(error as? StoreClientError)
            return error.code == .unreachable && error.isConnectionRefused
        }
        try await client.shutdown()
    }

    @Test("ClientEdge: header values the generator percent-encodes go as given, with the bearer token")
    func headersAsGiven() async throws {
        let edge = ClientEdge(token: "secret", server: "http://127.0.0.1:1", maximumBodyBytes: 1024)
        var request = HTTPRequest(method: .delete, scheme: "http", authority: "127.0.0.1:1", path: "/documents/a")
        request.headerFields[HTTPField.Name("If-Match")!] = "%22abc-2%22"
        request.headerFields[HTTPField.Name("X-Document-Password")!] = "p%25ss%20word"
        let seen = Seen()
        _ = try await edge.intercept(request, body: nil, baseURL: URL(string: "http://127.0.0.1:1")!, operationID: "x") {
            request, _, _ in
            seen.set(request.headerFields)
            return (HTTPResponse(status: .noContent), nil)
        }
        let fields = try #require(seen.fields)
        #expect(fields[HTTPField.Name("If-Match")!] == #""abc-2""#)
        #expect(fields[HTTPField.Name("X-Document-Password")!] == "p%ss word")
        #expect(fields[.authorization] == "Bearer secret")
    }

    @Test("ClientEdge: a 412 of a document is a versionMismatch; a body beyond the bound fails as it is read")
    func answersBounded() async throws {
        let edge = ClientEdge(token: nil, server: "http://127.0.0.1:1", maximumBodyBytes: 1024)
        let request = HTTPRequest(method: .put, scheme: "http", authority: "127.0.0.1:1", path: "/documents/a%2Fb/content")
        await #expect {
            _ = try await edge.intercept(request, body: nil, baseURL: URL(string: "http://127.0.0.1:1")!, operationID: "x") {
                _, _, _ in
                var response = HTTPResponse(status: .preconditionFailed)
                response.headerFields[.eTag] = #""def-7""#
                let problem = #"{"type":"/problems/precondition-failed","title":"Precondition Failed","status":412,"version":"7"}"#
                return (response, HTTPBody(problem))
            }
        } throws: { error in
            let error = try #require(error as? StoreClientError)
            return error.code == .versionMismatch && error.currentEtag == #""def-7""# && error.currentVersion == 7
        }
        let (_, body) = try await edge.intercept(
            request, body: nil, baseURL: URL(string: "http://127.0.0.1:1")!, operationID: "x"
        ) { _, _, _ in
            (HTTPResponse(status: .ok), HTTPBody([UInt8](repeating: 0x41, count: 1025)))
        }
        await #expect {
            _ = try await Data(collecting: try #require(body), upTo: 1 << 20)
        } throws: { error in
            (error as? StoreClientError)?.code == .unexpectedResponse
        }
    }
}

/// The header fields a test's `next` saw.
private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var value: HTTPFields?
    var fields: HTTPFields? { lock.withLock { value } }
    func set(_ fields: HTTPFields) { lock.withLock { value = fields } }
}
