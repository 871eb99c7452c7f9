import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import QuireAPI

/// A typed client of the document-store service's HTTP API (`openapi.yaml`): documents, pages, conflicts, and
/// the change feed.
///
/// Every method throws ``StoreClientError``: `.problem` with the service's problem details for an error
/// answer, `.unreachable` when nothing answers, `.unexpectedResponse` for an answer outside the API; or
/// `CancellationError` when the calling task is cancelled. Call ``shutdown()`` when done.
public final class StoreClient: Sendable {
    /// The service's base URL, without a trailing slash (`http://127.0.0.1:8080`).
    public let server: String
    /// The bearer token sent with every request, if any.
    public let token: String?
    /// How long a request may take until the answer's head arrives.
    public let requestTimeout: Duration
    let httpClient: HTTPClient
    /// The client swift-openapi-generator made from openapi.yaml, over `httpClient`, through ``ClientEdge``.
    let api: QuireAPI.Client

    /// The largest answer body the client reads (a PDF or a rendered page).
    static let maximumBodyBytes = 512 * 1024 * 1024

    /// Makes a client of the service at `server` (an `http` or `https` URL), with its own connection pool.
    /// - Parameters:
    ///   - server: The service's URL, such as `http://127.0.0.1:8080`.
    ///   - token: The bearer token the service asks of changes.
    ///   - requestTimeout: How long a request may take until the answer's head arrives.
    /// - Throws: ``StoreClientError/invalidServerURL(_:)`` when `server` is not an `http` or `https` URL with a
    ///   host.
    public init(server: String, token: String? = nil, requestTimeout: Duration = .seconds(30)) throws {
        var trimmed = server
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else { throw StoreClientError.invalidServerURL(server) }
        self.server = trimmed
        self.token = token
        self.requestTimeout = requestTimeout
        var configuration = HTTPClient.Configuration()
        // Nothing listening must fail at once, not after ten seconds of retries: the caller decides what to retry.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(5), read: .seconds(45))
        configuration.redirectConfiguration = .disallow
        httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        api = QuireAPI.Client(
            serverURL: url, configuration: .init(dateTranscoder: RFC3339Dates()),
            transport: AsyncHTTPClientTransport(
                configuration: .init(client: httpClient, timeout: .nanoseconds(Self.nanoseconds(requestTimeout)))),
            middlewares: [ClientEdge(token: token, server: trimmed, maximumBodyBytes: Self.maximumBodyBytes)])
    }

    /// Closes the client's connections; the client cannot be used afterwards. A client dropped without it
    /// shuts down in the background.
    /// - Throws: The connection pool's error when it cannot shut down cleanly.
    public func shutdown() async throws {
        try await httpClient.shutdown()
    }

    deinit {
        // A second shutdown only reports `alreadyShutdown` to the callback, which ignores it.
        httpClient.shutdown { _ in }
    }

    /// `GET /health`: whether the service serves, and the id of its newest event.
    /// - Throws: ``StoreClientError``.
    public func health() async throws -> ServiceHealth {
        try await call("GET /health") { try await api.getHealth().ok.body.json }
    }

    /// `GET /nodes`: the nodes that serve the store (one, or a cluster's).
    /// - Throws: ``StoreClientError``.
    public func nodes() async throws -> ServiceNodes {
        try await call("GET /nodes") { try await api.getNodes().ok.body.json }
    }

    /// `GET /documents`: one page of the documents, oldest first: at most `limit` of them (the service's default,
    /// 100, when nil), only those in `states` (every state when empty) and changed at or after `updatedSince`,
    /// starting after `cursor` (a previous page's `next`, asked with the same filters).
    /// - Throws: ``StoreClientError`` (`.problem` with status 400 and type `/problems/invalid-parameter`, whose
    ///   `ServiceProblem.parameter` names it, for a limit outside 1…1000 or a cursor the service did not give
    ///   for these filters).
    public func documentPage(
        limit: Int? = nil, states: Set<DocumentState> = [], updatedSince: Date? = nil, cursor: String? = nil
    ) async throws -> DocumentListPage {
        let query = Operations.ListDocuments.Input.Query(
            limit: limit, cursor: cursor, state: states.isEmpty ? nil : states.sorted { $0.rawValue < $1.rawValue },
            updatedSince: updatedSince)
        return try await call("GET /documents") { try await api.listDocuments(query: query).ok.body.json }
    }

    /// `GET /documents`, page after page: every document (only those in `states` when not empty, and changed at
    /// or after `updatedSince`), oldest first, `pageSize` (1…1000) per request, read as the sequence is iterated.
    public func documents(states: Set<DocumentState> = [], updatedSince: Date? = nil, pageSize: Int = 100)
        -> DocumentSequence
    {
        DocumentSequence(client: self, states: states, updatedSince: updatedSince, pageSize: pageSize)
    }

    /// `GET /search`: one page of the pages that match `query` (words, "phrases", `-exclusions`, `OR`, `prefix*`),
    /// best first, at most `limit` (1…100, the service's default 20), only documents in `states` (any when empty)
    /// or only `document`, starting after `cursor` (a previous page's `SearchResultPage.next` for the same query
    /// and filters).
    /// - Throws: ``StoreClientError`` (`.problem` with status 400 and type `/problems/invalid-parameter`, whose
    ///   `ServiceProblem.parameter` names it, for a query with nothing to look for, too long, or a bad limit or
    ///   cursor).
    public func search(
        _ query: String, limit: Int? = nil, states: Set<DocumentState> = [], document: String? = nil,
        cursor: String? = nil
    ) async throws -> SearchResultPage {
        let query = Operations.Search.Input.Query(
            q: query, limit: limit, cursor: cursor,
            state: states.isEmpty ? nil : states.sorted { $0.rawValue < $1.rawValue }, document: document)
        return try await call("GET /search") { try await api.search(query: query).ok.body.json }
    }

    /// `GET /documents/{id}`: a document's info.
    /// - Throws: ``StoreClientError`` (`.problem` with status 404 for an unknown id).
    public func document(_ id: String) async throws -> DocumentInfo {
        try await call("GET /documents/{id}") { try await api.getDocument(path: .init(id: id)).ok.body.json }
    }

    /// `GET /documents/{id}/conflict`: a document's conflict, if it has one.
    /// - Throws: ``StoreClientError``.
    public func conflict(of id: String) async throws -> ConflictReport {
        try await call("GET /documents/{id}/conflict") { try await api.getConflict(path: .init(id: id)).ok.body.json }
    }

    /// `POST /documents/{id}/conflict/resolve`: resolves a conflict, provided the document is still at the
    /// version `etag` names when one is given (sent as `If-Match`); returns the document's info, or nil after
    /// `close` (the document left the store).
    /// - Throws: ``StoreClientError`` (`.problem` with status 409 when the document is not in conflict;
    ///   `.versionMismatch` when it changed since `etag`).
    public func resolveConflict(of id: String, by resolution: ConflictResolution, ifMatch etag: String? = nil)
        async throws -> DocumentInfo?
    {
        try await call("POST /documents/{id}/conflict/resolve") {
            switch try await api.resolveConflict(
                path: .init(id: id), headers: .init(ifMatch: etag), body: .json(.init(resolution: resolution)))
            {
            case .ok(let answer): return try answer.body.json
            case .noContent: return nil
            case let other: throw UndocumentedAnswer(other)
            }
        }
    }

    /// `GET /documents/{id}/versions`: the versions kept of the document's files, oldest first.
    /// - Throws: ``StoreClientError`` (`.problem` with status 404 for an unknown id).
    public func versions(of id: String) async throws -> [DocumentVersion] {
        try await call("GET /documents/{id}/versions") {
            try await api.listVersions(path: .init(id: id)).ok.body.json.versions
        }
    }

    /// `POST /documents/{id}/versions/{version}/restore`: makes the version's bytes the content of its file again,
    /// provided the document's entity tag is still `etag` (sent as `If-Match`); returns the document's info.
    /// - Throws: ``StoreClientError`` (`.problem` with 404 for an unknown version or 409 in conflict;
    ///   `.versionMismatch` when the document changed since `etag`).
    public func restoreVersion(_ version: String, of id: String, ifMatch etag: String) async throws -> DocumentInfo {
        try await call("POST /documents/{id}/versions/{version}/restore") {
            try await api.restoreVersion(path: .init(id: id, version: version), headers: .init(ifMatch: etag)).ok.body
                .json
        }
    }

    /// `POST /documents` with a PDF: stores it in the service's store directory; returns the new document's info.
    /// - Throws: ``StoreClientError`` (`.problem` with 413 when too large, 422 when not a usable PDF).
    public func upload(pdf: Data) async throws -> DocumentInfo {
        try await call("POST /documents") { try await api.createDocument(body: .pdf(HTTPBody(pdf))).created.body.json }
    }

    /// `POST /documents` with paths: registers files under the service's roots as one document, pages in order;
    /// returns its info, that of the document they already make up when the same files were registered before.
    /// - Throws: ``StoreClientError`` (`.problem` with 403 for a path outside every root, 409 for a file that
    ///   belongs to another document).
    public func register(files: [String]) async throws -> DocumentInfo {
        try await call("POST /documents") {
            switch try await api.createDocument(body: .json(.init(files: files))) {
            case .created(let answer): return try answer.body.json
            case .ok(let answer): return try answer.body.json
            case let other: throw UndocumentedAnswer(other)
            }
        }
    }

    /// `GET /documents/{id}/content`: the document's PDF bytes.
    /// - Throws: ``StoreClientError``.
    public func content(of id: String) async throws -> Data {
        try await call("GET /documents/{id}/content") {
            try await collect(api.getDocumentContent(path: .init(id: id)).ok.body.pdf)
        }
    }

    /// `GET /documents/{id}/pages/{n}/text`: the text of page `page` (from 1).
    /// - Throws: ``StoreClientError`` (`.problem` with 404 for a page that does not exist).
    public func pageText(of id: String, page: Int) async throws -> String {
        try await call("GET /documents/{id}/pages/{n}/text") {
            let text = try await api.getPageText(path: .init(id: id, n: page)).ok.body.plainText
            return String(decoding: try await collect(text), as: UTF8.self)
        }
    }

    /// `GET /documents/{id}/pages/{n}/image`: page `page` (from 1) as PNG, at `dpi` (the service's default when
    /// nil).
    /// - Throws: ``StoreClientError`` (`.problem` with 400 for a resolution above the service's limit).
    public func pageImage(of id: String, page: Int, dpi: Int? = nil) async throws -> Data {
        try await call("GET /documents/{id}/pages/{n}/image") {
            try await collect(api.getPageImage(path: .init(id: id, n: page), query: .init(dpi: dpi)).ok.body.png)
        }
    }

    /// `PATCH /documents/{id}/metadata`: sets the metadata members given in `patch` in memory (the document
    /// becomes dirty until saved), provided the document is still at the version `etag` names (sent as
    /// `If-Match`; without one the edit applies to whatever version is current); returns the document's info,
    /// with its new version.
    /// - Throws: ``StoreClientError`` (`.versionMismatch` when the document changed since `etag`).
    public func updateMetadata(of id: String, _ patch: DocumentMetadata, ifMatch etag: String? = nil) async throws
        -> DocumentInfo
    {
        try await call("PATCH /documents/{id}/metadata") {
            try await api.updateMetadata(
                path: .init(id: id), headers: .init(ifMatch: etag), body: .applicationMergePatchJson(patch)
            ).ok.body.json
        }
    }

    /// `POST /documents/{id}/annotations`: adds a note or a highlight in memory (the document becomes dirty until
    /// saved), provided the document is still at the version `etag` names, when one is given; returns the
    /// document's info, with its new version.
    /// - Throws: ``StoreClientError`` (`.problem` with 400 for a rectangle outside the page; `.versionMismatch`
    ///   when the document changed since `etag`).
    public func addAnnotation(to id: String, _ annotation: AnnotationRequest, ifMatch etag: String? = nil)
        async throws -> DocumentInfo
    {
        try await call("POST /documents/{id}/annotations") {
            try await api.addAnnotation(path: .init(id: id), headers: .init(ifMatch: etag), body: .json(annotation)).ok
                .body.json
        }
    }

    /// `POST /documents/{id}/save`: writes the document's unsaved edits to its files, provided it is still at the
    /// version `etag` names; returns the document's info, with its new version.
    /// - Throws: ``StoreClientError`` (`.problem` with 409 in conflict; `.versionMismatch` when the document
    ///   changed since `etag`).
    public func save(_ id: String, ifMatch etag: String) async throws -> DocumentInfo {
        try await call("POST /documents/{id}/save") {
            try await api.saveDocument(path: .init(id: id), headers: .init(ifMatch: etag)).ok.body.json
        }
    }

    /// `PUT /documents/{id}/content`: replaces the document's (one) file with `pdf`, provided the document is
    /// still at the version `etag` names; its unsaved edits are dropped. Returns the document's info.
    /// - Throws: ``StoreClientError`` (`.problem` with 422 when `pdf` is not a usable PDF; `.versionMismatch`
    ///   when the document changed since `etag`).
    public func replaceContent(of id: String, with pdf: Data, ifMatch etag: String) async throws -> DocumentInfo {
        try await call("PUT /documents/{id}/content") {
            try await api.replaceDocumentContent(
                path: .init(id: id), headers: .init(ifMatch: etag), body: .pdf(HTTPBody(pdf))
            ).ok.body.json
        }
    }

    /// `DELETE /documents/{id}`: removes the document from the store (an uploaded document's file with it),
    /// provided it is still at the version `etag` names.
    /// - Throws: ``StoreClientError`` (`.versionMismatch` when the document changed since `etag`).
    public func delete(_ id: String, ifMatch etag: String) async throws {
        _ = try await call("DELETE /documents/{id}") {
            try await api.deleteDocument(path: .init(id: id), headers: .init(ifMatch: etag)).noContent
        }
    }

    /// `GET /events`: the change feed from now on, or after `lastEventID` (replayed from the service's log
    /// first), resuming after a dropped connection as `policy` says.
    public func events(after lastEventID: Int64? = nil, policy: ReconnectPolicy = ReconnectPolicy())
        -> DocumentEventFeed
    {
        DocumentEventFeed(client: self, lastEventID: lastEventID, policy: policy)
    }

    // MARK: - Requests

    /// Runs one call of the generated client: an error answer arrives as the ``StoreClientError`` ``ClientEdge``
    /// made of it, a transport failure as `.unreachable` (or `CancellationError`), an answer outside the API
    /// (an unexpected status, content type or JSON) as `.unexpectedResponse` naming `operation`.
    func call<T>(_ operation: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ClientError {
            if let own = error.underlyingError as? StoreClientError { throw own }
            if error.underlyingError is CancellationError { throw CancellationError() }
            if error.response == nil, !(error.underlyingError is DecodingError) {
                throw mapTransportError(error.underlyingError)
            }
            throw StoreClientError.unexpectedResponse(
                server: server, reason: "\(operation): \(Self.summary(of: error.underlyingError))")
        } catch let error as StoreClientError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // The generated outputs' accessors (`.ok`) throw when the answer is another documented one (a 304).
            throw StoreClientError.unexpectedResponse(server: server, reason: "\(operation): \(error)")
        }
    }

    /// An answer the generated client read but the call has no use for (a documented status that does not apply,
    /// such as a 304 to a request without a validator): ``call(_:_:)`` reports it as `.unexpectedResponse`.
    struct UndocumentedAnswer: Error, CustomStringConvertible {
        let description: String
        init(_ output: some Sendable) { description = "answered \(output)" }
    }

    /// The whole of a body the generated client hands over (``ClientEdge`` bounds it).
    func collect(_ body: HTTPBody) async throws -> Data {
        try await Data(collecting: body, upTo: Self.maximumBodyBytes)
    }

    /// The ``StoreClientError`` an error answer stands for: `.versionMismatch` for a 412 of a document's route
    /// (with the current entity tag and version the problem or the `ETag` header names), `.problem` otherwise.
    static func error(status: Int, etag: String?, body: Data, path: String) -> StoreClientError {
        let problem = problem(status: status, body: body)
        if status == 412, let id = documentID(inPath: path) {
            return StoreClientError.versionMismatch(
                document: id, currentEtag: problem.etag ?? etag, currentVersion: problem.currentVersion, problem: problem)
        }
        return StoreClientError.problem(problem)
    }

    /// A `GET` of `path` with the client's token (the event feed's own request).
    func request(_ path: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: server + path)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        return request
    }

    /// Executes a request until the answer's head arrives; transport errors become `.unreachable`.
    func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        do {
            return try await httpClient.execute(request, timeout: .nanoseconds(Self.nanoseconds(requestTimeout)))
        } catch {
            throw mapTransportError(error)
        }
    }

    /// A transport error as ``StoreClientError/unreachable(server:reason:connectionRefused:)``, or
    /// `CancellationError` when the task was cancelled.
    func mapTransportError(_ error: any Error) -> any Error {
        if error is CancellationError || Task.isCancelled { return CancellationError() }
        if let clientError = error as? HTTPClientError, clientError == .cancelled { return CancellationError() }
        let failure = TransportFailure(error)
        return StoreClientError.unreachable(
            server: server, reason: failure.reason, connectionRefused: failure.isConnectionRefused)
    }

    /// The problem details in the `body` of an error answer of `status`; a stand-in made from the status when the
    /// body is not one.
    static func problem(status: Int, body: Data) -> ServiceProblem {
        if let problem = try? jsonDecoder.decode(ServiceProblem.self, from: body) { return problem }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
            .split(whereSeparator: \.isNewline).joined(separator: " ")
        return ServiceProblem(
            status: status, title: HTTPResponseStatus(statusCode: status).reasonPhrase,
            detail: text.isEmpty ? nil : text)
    }

    /// The document id of a `/documents/{id}…` path, nil for another path.
    static func documentID(inPath path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 3, segments[1] == "documents" else { return nil }
        return String(segments[2]).removingPercentEncoding
    }

    /// Decodes the API's JSON as the generated client does: dates are RFC 3339, with or without fractional seconds
    /// (``RFC3339Dates``).
    static let jsonDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = RFC3339Dates.date(from: text) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not an RFC 3339 date: \(text)"))
            }
            return date
        }
        return decoder
    }()

    private static func summary(of error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return String(describing: error) }
        switch decoding {
        case .keyNotFound(let key, let context):
            return "no \(Self.path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(Self.path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty
            ? "the top level" : keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
