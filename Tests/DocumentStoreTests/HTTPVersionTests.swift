import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import DocumentStore
@testable import StoreCore

/// An HTTP/1.0 client is answered in HTTP/1.0: no chunked coding it cannot read, and the connection closes after the
/// answer unless it asked for keep-alive (and the answer has a length).
@Suite("HTTP versions")
struct HTTPVersionTests {
    /// Runs a live service on the service's own pipeline over a bare library.
    static func withService(_ body: @escaping @Sendable (_ port: Int, _ library: BareLibrary) async throws -> Void)
        async throws
    {
        let bare = try BareLibrary()
        defer { Task { await bare.remove() } }
        try await bare.withLiveService { port in try await body(port, bare) }
    }

    /// The head of a raw response, lower-cased.
    static func head(_ text: String) -> String {
        (text.components(separatedBy: "\r\n\r\n").first ?? "").lowercased()
    }

    @Test("GET /health in HTTP/1.0 is answered in HTTP/1.0 with Connection: close, and the connection closes")
    func healthClosesConnection() async throws {
        try await Self.withService { port, _ in
            let connection = try RawConnection(port: port)
            try connection.send("GET /health HTTP/1.0\r\n\r\n")
            let answer = connection.read(timeout: .seconds(5))
            #expect(answer.text.hasPrefix("HTTP/1.0 200 OK\r\n"), "\(answer.text)")
            let head = Self.head(answer.text)
            #expect(head.contains("\r\nconnection: close"), "\(head)")
            #expect(!head.contains("transfer-encoding"), "\(head)")
            #expect(answer.closed, "the connection stayed open after an HTTP/1.0 answer")
        }
    }

    @Test("an HTTP/1.0 client that asks for keep-alive keeps its connection for an answer with a length")
    func keepAliveAsked() async throws {
        try await Self.withService { port, _ in
            let connection = try RawConnection(port: port)
            try connection.send("GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let first = connection.read(timeout: .seconds(5)) { $0.contains("\r\n\r\n") && $0.hasSuffix("}") }
            #expect(first.text.hasPrefix("HTTP/1.0 200 OK\r\n"), "\(first.text)")
            #expect(Self.head(first.text).contains("\r\nconnection: keep-alive"), "\(first.text)")
            #expect(!first.closed)
            try connection.send("GET /health HTTP/1.0\r\n\r\n")
            let second = connection.read(timeout: .seconds(5))
            #expect(second.text.hasPrefix("HTTP/1.0 200 OK\r\n"), "\(second.text)")
            #expect(second.closed)
        }
    }

    @Test("an HTTP/1.1 client is still answered in HTTP/1.1, and keeps its connection")
    func http11Unchanged() async throws {
        try await Self.withService { port, _ in
            let connection = try RawConnection(port: port)
            try connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = connection.read(timeout: .seconds(2))
            #expect(answer.text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer.text)")
            #expect(!Self.head(answer.text).contains("connection: close"))
            #expect(!answer.closed)
        }
    }

    @Test("/events to an HTTP/1.0 client is not chunked: events as they are, ended by the end of the connection")
    func eventsUnchunked() async throws {
        try await Self.withService { port, bare in
            let connection = try RawConnection(port: port)
            try connection.send("GET /events HTTP/1.0\r\n\r\n")
            let opened = connection.read(timeout: .seconds(5)) { $0.contains(": connected") }
            #expect(opened.text.hasPrefix("HTTP/1.0 200 OK\r\n"), "\(opened.text)")
            let head = Self.head(opened.text)
            #expect(!head.contains("transfer-encoding"), "\(head)")
            #expect(head.contains("\r\nconnection: close"), "\(head)")
            // The body starts with the comment itself, no chunk size before it.
            #expect(opened.text.contains("\r\n\r\n: connected\n\n"), "\(opened.text)")
            let event = try await bare.catalog.append(
                StoreEvent(type: .changed, documentID: DocumentID(rawValue: "doc")!))
            let next = connection.read(timeout: .seconds(5)) { $0.contains("\n\n") }
            #expect(next.text.hasPrefix("id: \(event.id ?? -1)\n"), "\(next.text)")
        }
    }
}
