import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import DocumentStore
@testable import StoreCore

/// No event is lost silently: a future `Last-Event-ID` is refused, and a reader too slow for the live feed has its
/// stream ended (never skipped ahead), then resumes from the log with `Last-Event-ID`.
@Suite("Event streams lose nothing")
struct EventLossTests {
    @Test("a Last-Event-ID beyond the newest event is a 400 problem")
    func futureLastEventID() async throws {
        let service = try DocumentService()
        try await service.run { client in
            // Bounded: a service that accepted the id would stream forever.
            let response = try await withThrowingTaskGroup(of: TestResponse?.self) { group in
                group.addTask {
                    try await client.execute(uri: "/events", method: .get, headers: [.lastEventID: "99999"])
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(5))
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            let answered = try #require(response, "no answer within 5 s")
            #expect(answered.status == .badRequest)
            #expect(answered.headers[.contentType] == "application/problem+json")
            let body = String(buffer: answered.body)
            #expect(body.contains("/problems/future-event-id"), "\(body)")
            #expect(body.contains("Last-Event-ID 99999 is beyond the newest event"), "\(body)")
        }
    }

    @Test("a stalled reader's stream ends; what it got and the replay after it hold every event, without a gap")
    func stalledReaderResumes() async throws {
        let bare = try BareLibrary(eventBufferBound: 8)
        let (library, catalog, metrics) = (bare.library, bare.catalog, bare.metrics)
        let router = buildRouter(
            configuration: bare.configuration, catalog: catalog, metrics: metrics,
            controllers: documentControllers(library: library, configuration: bare.configuration))
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        defer { Task { await bare.remove() } }
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let stalled = try RawConnection(port: port, receiveBuffer: 2048)
            try stalled.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            let opened = stalled.read(timeout: .seconds(10)) { $0.contains(": connected") }
            #expect(opened.text.contains(": connected"), "\(opened.text)")
            // Publish until the service gives up on the stalled reader (bounded).
            let document = DocumentID(rawValue: "doc")!
            var published: Int64 = 0
            while library.events.subscriberCount > 0, published < 50_000 {
                // The catalog hands each event to the library's feed as it commits.
                let event = try await catalog.append(StoreEvent(type: .changed, documentID: document))
                published = event.id ?? published
            }
            #expect(library.events.subscriberCount == 0, "the stalled stream was never ended")
            let first = stalled.read(timeout: .seconds(20)) { $0.hasSuffix("\r\n0\r\n\r\n") }
            #expect(first.text.hasSuffix("\r\n0\r\n\r\n"), "the stream did not end")
            let received = Self.eventIDs(in: first.text)
            #expect(received == Array(1..<Int64(received.count + 1)), "the first stream has a gap")
            // Its last word says where to resume, and the service counts the cut.
            #expect(first.text.contains("event: resume"), "no final resume event")
            #expect(first.text.contains(#"{"lastEventId":\#(received.last ?? -1),"#), "the resume event's id")
            var exposition: [UInt8] = []
            metrics.registry.emit(into: &exposition)
            #expect(String(decoding: exposition, as: UTF8.self).contains("quire_event_streams_cut_off_total 1"))
            let resumed = try RawConnection(port: port)
            try resumed.send("GET /events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: \(received.last ?? 0)\r\n\r\n")
            let replay = resumed.read(timeout: .seconds(20)) { $0.contains(": connected") }
            let replayed = Self.eventIDs(in: replay.text)
            #expect(received + replayed == Array(1...published), "ids missing after the replay")
        }
    }

    /// The `id:` of every event in a raw (chunked) event-stream response.
    static func eventIDs(in text: String) -> [Int64] {
        // Chunk framing puts CRLF before lines, and CRLF is one Character: split on LF scalars.
        text.unicodeScalars.split(separator: "\n").map { String(String.UnicodeScalarView($0)) }.compactMap { line in
            line.hasPrefix("id: ") ? Int64(line.dropFirst(4).trimmingCharacters(in: .whitespaces)) : nil
        }
    }
}
