import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import StoreCore

/// Sends a cluster node's requests for a document it does not own to the node that does (the one that keeps the
/// document open with its unsaved edits and its conflict), and answers what that node answers.
///
/// Which requests go: those that act on, or show, what only the owner holds — `PATCH …/metadata`,
/// `POST …/annotations`, `POST …/save`, `GET …/conflict`, `POST …/conflict/resolve`,
/// `POST …/versions/{v}/restore`, `PUT …/content` (its body streamed through), `DELETE /documents/{id}` — and
/// `GET /documents/{id}` while the document is dirty or in conflict: every write is decided by the owner, against
/// its lane and the catalog, so that its status, body and event are those of one node whichever node got it.
/// Reads of the saved bytes (content, page text and images, a clean document's info) run on the node that got
/// them.
///
/// A forwarded request carries `Quire-Forwarded-By: <node id>` and is never forwarded again (no request goes round
/// in circles): its receiver answers it if it still owns the document, else answers 503 with `Retry-After: 1`. An
/// owner that stops heartbeating while its answer is awaited, or does not answer, loses the document to the sender
/// once it is dead (no heartbeat within 5 s); one that is alive but does not answer within the timeout is a 503
/// problem with `Retry-After: 1`.
public struct OwnerForwarder: Sendable {
    /// The header that marks a forwarded request, with the forwarding node's id.
    public static let forwardedBy = HTTPField.Name("Quire-Forwarded-By")!

    /// The most bytes of an owner's answer this node passes on (every forwarded answer is JSON or a problem).
    static let maximumAnswer = 16 << 20

    private let library: DocumentLibrary
    private let client: HTTPClient
    private let timeout: TimeAmount

    /// Makes the forwarder; `client` must be shut down by its owner (``HTTPClientService``).
    public init(library: DocumentLibrary, client: HTTPClient, timeout: Duration = .seconds(30)) {
        self.library = library
        self.client = client
        self.timeout = .nanoseconds(
            timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
    }

    /// The owner's answer to `request` (its body, already read, in `body`), or nil when this node answers it:
    /// it owns the document, or is not a cluster node.
    ///
    /// A forwarded request is answered here only if this node still owns the document: a node that was stalled
    /// (stopped, or cut off from the database) for longer than the liveness window may have lost it meanwhile,
    /// and must not change its stale copy; it answers 503 with `Retry-After`, and the sender's next try goes to
    /// the new owner. While a forwarded request waits for its answer, the owner's liveness is checked every
    /// second: an owner that stops heartbeating (stalled, not just slow) loses the document to this node, which
    /// answers itself rather than wait for the forward's timeout.
    /// - Throws: ``ProblemDetails`` 503 when the owner cannot be found or does not answer, or this node lost the
    ///   document a forwarded request is about.
    public func answer(_ request: Request, for id: DocumentID, body: ByteBuffer? = nil) async throws -> Response? {
        try await answer(request, for: id, outgoing: body.map { .bytes($0) })
    }

    /// The owner's answer to `request`, whose body (not read yet: a `PUT …/content`'s PDF) streams through to
    /// the owner with its declared length, or nil when this node answers it (see
    /// ``answer(_:for:body:)``).
    /// - Throws: As ``answer(_:for:body:)``; 411 problem details when the request does not declare its length.
    public func answerStreamingBody(of request: Request, for id: DocumentID) async throws -> Response? {
        guard library.isClusterNode else { return nil }
        guard let declared = request.headers[.contentLength].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else {
            throw ProblemDetails(
                status: .lengthRequired,
                detail: "a body sent through another node to document \(id.rawValue)'s owner needs a Content-Length")
        }
        return try await answer(
            request, for: id, outgoing: .stream(request.body, length: .known(Int64(declared))), streamed: true)
    }

    private func answer(
        _ request: Request, for id: DocumentID, outgoing body: HTTPClientRequest.Body?, streamed: Bool = false
    ) async throws -> Response? {
        guard library.isClusterNode else { return nil }
        let owner: DocumentOwner
        do {
            owner = try await library.owner(of: id)
        } catch let error as StoreError {
            throw ProblemDetails(error)
        }
        guard case .other(let node, let address) = owner else { return nil }
        if request.headers[Self.forwardedBy] != nil {
            throw ProblemDetails(
                status: .serviceUnavailable,
                detail: "document \(id.rawValue) is kept by node \(node) now, not by this one: send the request again",
                headers: [.retryAfter: "1"])
        }
        let library = library
        do {
            let answer = try await withThrowingTaskGroup(of: Response?.self) { group in
                group.addTask { try await forward(request, body: body, to: address) }
                group.addTask {
                    while true {
                        try await Task.sleep(for: .seconds(1))
                        if await !library.nodeIsAlive(node) { return nil }
                    }
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            if let answer { return answer }
            throw OwnerStopped()
        } catch {
            // The owner did not answer: if it is dead by now (no heartbeat within 5 s), this node takes the
            // document over and answers itself.
            library.forgetOwner(of: id)
            // A streamed body went (in part) to the owner: this node cannot answer in its place, the client sends
            // it again (to this node, which owns the document by then).
            if !streamed, case .this = try? await library.owner(of: id) { return nil }
            throw ProblemDetails(
                status: .serviceUnavailable,
                detail: "document \(id.rawValue) is kept by node \(node) at \(address), which does not answer "
                    + "(\(error)); if that node is gone, another takes its documents over within seconds",
                headers: [.retryAfter: "1"])
        }
    }

    /// The owner stopped heartbeating while its answer was awaited.
    private struct OwnerStopped: Error, CustomStringConvertible {
        var description: String { "it stopped heartbeating" }
    }

    /// The answer of the node at `address` to `request`, with `body`.
    private func forward(
        _ request: Request, body: HTTPClientRequest.Body?, to address: String
    ) async throws -> Response {
        var outgoing = HTTPClientRequest(url: "http://\(address)\(request.uri.description)")
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers where !Self.notForwarded.contains(field.name) {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        outgoing.headers.replaceOrAdd(name: Self.forwardedBy.rawName, value: library.membership.id)
        if let body { outgoing.body = body }
        let response = try await client.execute(outgoing, timeout: timeout)
        let bytes = try await response.body.collect(upTo: Self.maximumAnswer)
        var headers = HTTPFields()
        for (name, value) in response.headers {
            guard let field = HTTPField.Name(name), !Self.notForwarded.contains(field),
                field != .requestID
            else { continue }
            headers.append(HTTPField(name: field, value: value))
        }
        return Response(
            status: HTTPResponse.Status(code: Int(response.status.code)), headers: headers,
            body: ResponseBody(byteBuffer: bytes))
    }

    /// Fields that belong to one connection, or that the answering node sets itself.
    private static let notForwarded: Set<HTTPField.Name> = [
        .connection, HTTPField.Name("Keep-Alive")!, HTTPField.Name("Proxy-Connection")!, .transferEncoding,
        .upgrade, .te, HTTPField.Name("Host")!, .contentLength, .server, .date,
    ]
}

/// Runs until the service group shuts down, then shuts the HTTP client down (the forwarder's).
public struct HTTPClientService: Service {
    private let client: HTTPClient

    /// Makes the service for `client`.
    public init(client: HTTPClient) {
        self.client = client
    }

    /// Waits for graceful shutdown, then shuts the client down. Throws nothing.
    public func run() async throws {
        try? await gracefulShutdown()
        try? await client.shutdown()
    }
}
