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

    /// On the service's own pipeline (deadlines, backlog), with an idle timeout of 2 s.
    @Test("a reader that stops reading gets whole events, a resume event and the stream's end when given up on")
    func stoppedReaderGetsCleanEnd() async throws {
        let bare = try BareLibrary(idleTimeout: .seconds(2))
        let (library, catalog, metrics) = (bare.library, bare.catalog, bare.metrics)
        defer { Task { await bare.remove() } }
        try await bare.withLiveService { port in
            let stopped = try RawConnection(port: port, receiveBuffer: 2048)
            try stopped.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            let opened = stopped.read(timeout: .seconds(10)) { $0.contains(": connected") }
            #expect(opened.text.contains(": connected"), "\(opened.text)")
            // The reader takes nothing more. Events come at about 1,000 a second until the service gives up on the
            // reader (bounded: 30,000 events). (On the code before, the writes waited for the reader, nothing was
            // written for the idle timeout, and the deadline closed the connection mid-event first.)
            let document = DocumentID(rawValue: "doc")!
            var published: Int64 = 0
            let started = ContinuousClock.now
            while library.events.subscriberCount > 0, published < 30_000 {
                let event = try await catalog.append(StoreEvent(type: .changed, documentID: document))
                published = event.id ?? published
                if published % 50 == 0 { try await Task.sleep(for: .milliseconds(50)) }
            }
            let gaveUpAfter = ContinuousClock.now - started
            #expect(library.events.subscriberCount == 0, "the service never gave up on the reader")
            // Now it reads: what the service had for it, whole, then where to resume, then the end of the stream.
            let rest = stopped.read(timeout: .seconds(20)) { $0.hasSuffix("\r\n0\r\n\r\n") }
            let text = opened.text + rest.text
            let body = try #require(Self.dechunked(text), "the chunked body is cut: \(text.suffix(300))")
            #expect(body.complete, "no terminating chunk (gave up after \(gaveUpAfter), \(published) events)")
            let blocks = body.text.components(separatedBy: "\n\n")
            #expect(blocks.last == "", "the stream ends mid-event: \(body.text.suffix(200))")
            let received = Self.eventIDs(in: body.text)
            #expect(!received.isEmpty)
            #expect(received == Array(1..<Int64(received.count + 1)), "the stream has a gap")
            let resume = try #require(blocks.dropLast().last, "no final event")
            #expect(resume.hasPrefix("event: resume\ndata: {\"lastEventId\":\(received.last ?? -1),"), "\(resume)")
            var exposition: [UInt8] = []
            metrics.registry.emit(into: &exposition)
            #expect(String(decoding: exposition, as: UTF8.self).contains("quire_event_streams_cut_off_total 1"))
            // The bound: what the service wrote for the reader beyond what its kernel buffers took.
            print(
                "stopped reader: gave up after \(gaveUpAfter) and \(published) events; \(received.count) events, "
                    + "\(body.text.utf8.count) bytes reached the reader")
            let resumed = try RawConnection(port: port)
            try resumed.send("GET /events HTTP/1.1\r\nHost: x\r\nLast-Event-ID: \(received.last ?? 0)\r\n\r\n")
            let replay = resumed.read(timeout: .seconds(20)) { $0.contains(": connected") }
            #expect(received + Self.eventIDs(in: replay.text) == Array(1...published), "ids missing after the replay")
        }
    }

    /// The service's closes (here the idle timeout's, once the stream ended) wait for the answer's unsent bytes
    /// while the reader takes them.
    @Test("a reader given up on that then reads slowly, for longer than the idle timeout, still gets the stream's end")
    func slowReaderGetsCleanEnd() async throws {
        let bare = try BareLibrary(idleTimeout: .seconds(2))
        let (library, catalog) = (bare.library, bare.catalog)
        defer { Task { await bare.remove() } }
        try await bare.withLiveService { port in
            let slow = try RawConnection(port: port, receiveBuffer: 2048)
            try slow.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            var text = slow.read(timeout: .seconds(10)) { $0.contains(": connected") }.text
            let document = DocumentID(rawValue: "doc")!
            var published = 0
            while library.events.subscriberCount > 0, published < 30_000 {
                _ = try await catalog.append(StoreEvent(type: .changed, documentID: document))
                published += 1
            }
            #expect(library.events.subscriberCount == 0, "the service never gave up on the reader")
            // 1 KiB every 50 ms at most: what the service holds for it takes longer than the idle timeout to read.
            let started = ContinuousClock.now
            while !text.hasSuffix("\r\n0\r\n\r\n"), ContinuousClock.now - started < .seconds(60) {
                let part = slow.read(atMost: 1024, timeout: .seconds(5))
                text += part.text
                if part.closed { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let took = ContinuousClock.now - started
            #expect(took > .seconds(2), "read too fast to outlast the idle timeout: \(took)")
            let body = try #require(Self.dechunked(text), "the chunked body is cut after \(took): \(text.suffix(300))")
            #expect(body.complete, "no terminating chunk after \(took)")
            #expect(body.text.hasSuffix("\n\n") && body.text.contains("event: resume\n"), "\(body.text.suffix(300))")
        }
    }

    /// The body of a raw chunked response (head included in `text`), and whether its terminating chunk came; nil
    /// when a chunk is cut short.
    static func dechunked(_ text: String) -> (text: String, complete: Bool)? {
        var bytes = Array(text.utf8)[...]
        guard let headEnd = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        bytes = bytes[headEnd.upperBound...]
        var body: [UInt8] = []
        while let lineEnd = bytes.firstRange(of: Array("\r\n".utf8)) {
            guard let size = Int(String(decoding: bytes[..<lineEnd.lowerBound], as: UTF8.self), radix: 16) else {
                return nil
            }
            if size == 0 { return (String(decoding: body, as: UTF8.self), true) }
            let start = lineEnd.upperBound
            guard bytes.endIndex >= start + size + 2 else { return nil }
            body += bytes[start..<start + size]
            bytes = bytes[(start + size + 2)...]
        }
        return bytes.isEmpty ? (String(decoding: body, as: UTF8.self), false) : nil
    }

    /// The `id:` of every event in a raw (chunked) event-stream response.
    static func eventIDs(in text: String) -> [Int64] {
        // Chunk framing puts CRLF before lines, and CRLF is one Character: split on LF scalars.
        text.unicodeScalars.split(separator: "\n").map { String(String.UnicodeScalarView($0)) }.compactMap { line in
            line.hasPrefix("id: ") ? Int64(line.dropFirst(4).trimmingCharacters(in: .whitespaces)) : nil
        }
    }
}
