import DocumentStore
import Foundation
import HTTPTypes
import QuireAPI
import Testing

@Suite("Server-sent events")
struct ServerSentEventTests {
    @Test("an event is id, event and data lines, ended by a blank line")
    func encoding() {
        let event = ServerSentEvent(id: "7", event: "changed", data: #"{"id":7}"#)
        #expect(event.encoded == "id: 7\nevent: changed\ndata: {\"id\":7}\n\n")
        #expect(ServerSentEvent(data: "x", retry: 3000).encoded == "retry: 3000\ndata: x\n\n")
    }

    @Test("data of several lines (LF, CRLF, CR) becomes several data lines; empty data one empty line")
    func multilineData() {
        #expect(ServerSentEvent(data: "a\nb\r\nc\rd").encoded == "data: a\ndata: b\ndata: c\ndata: d\n\n")
        #expect(ServerSentEvent(data: "a\n").encoded == "data: a\ndata: \n\n")
        #expect(ServerSentEvent(data: "").encoded == "data: \n\n")
    }

    @Test("line breaks and NUL cannot break out of id and event")
    func singleLineFields() {
        let event = ServerSentEvent(id: "1\n2\0", event: "a\r\nb", data: "x")
        #expect(event.encoded == "id: 12\nevent: ab\ndata: x\n\n")
    }

    @Test("a keep-alive is a comment line that clients ignore")
    func keepAlive() {
        #expect(ServerSentEvent.comment() == ": keep-alive\n\n")
        #expect(ServerSentEvent.comment("a\nb") == ": a\n: b\n\n")
    }

    @Test("a store event is sent as id, type and its JSON with the type-specific members")
    func storeEvent() throws {
        var event = StoreEvent(
            type: .moved, documentID: DocumentID(rawValue: "doc")!, etag: EntityTag(opaqueTag: "e1"),
            at: Date(timeIntervalSince1970: 1_790_000_000.25), extra: ["from": "/a/x.pdf", "to": "/b/x.pdf"])
        event.id = 42
        event.version = 7
        let sse = event.serverSentEvent
        #expect(sse.id == "42")
        #expect(sse.event == "moved")
        // `etag` is the document's validator after the event (content tag and version), `contentEtag` the content's.
        #expect(
            sse.data
                == #"{"at":"2026-09-21T14:13:20.250Z","contentEtag":"\"e1\"","document":"doc","etag":"\"e1-7\"","#
                + #""from":"/a/x.pdf","id":42,"to":"/b/x.pdf","type":"moved","version":7}"#)
        var untagged = StoreEvent(
            type: .deleted, documentID: DocumentID(rawValue: "doc")!, at: Date(timeIntervalSince1970: 0))
        untagged.id = 43
        #expect(untagged.serverSentEvent.data.contains(#""etag":null"#))
    }

    @Test("a store event's data is the spec's Event: nullable members null, other absent members left out")
    func storeEventAsSpecEvent() throws {
        let at = Date(timeIntervalSince1970: 1_790_000_000.25)
        var damaged = StoreEvent(
            type: .damaged, documentID: DocumentID(rawValue: "doc")!, at: at,
            extra: ["file": "/r/x.pdf", "reason": "no xref table"])
        damaged.id = 9
        // No tag and no version: null; no `from`, `to`, `conflict`, … for a `damaged` event: left out.
        #expect(
            damaged.serverSentEvent.data
                == #"{"at":"2026-09-21T14:13:20.250Z","contentEtag":null,"document":"doc","etag":null,"file":"/r/x.pdf","#
                + #""id":9,"reason":"no xref table","type":"damaged","version":null}"#)
        // What a client generated from the spec reads: the reason too (it was sent but not declared before).
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            try Date(try decoder.singleValueContainer().decode(String.self), strategy: .iso8601)
        }
        let read = try decoder.decode(Components.Schemas.Event.self, from: Data(damaged.serverSentEvent.data.utf8))
        #expect(read._type == .damaged && read.file == "/r/x.pdf" && read.reason == "no xref table")
        var conflict = StoreEvent(
            type: .conflict, documentID: DocumentID(rawValue: "doc")!, etag: EntityTag(opaqueTag: "e1"), at: at,
            extra: ["conflict": "deletion", "file": "/r/x.pdf"])
        conflict.id = 10
        conflict.version = 3
        let readConflict = try decoder.decode(
            Components.Schemas.Event.self, from: Data(conflict.serverSentEvent.data.utf8))
        #expect(readConflict.conflict == .deletion && readConflict.version == 3 && readConflict.etag == #""e1-3""#)
    }

    @Test("Last-Event-ID is a non-negative integer; anything else is a 400 problem")
    func lastEventID() throws {
        #expect(try StoreEvent.lastEventID(in: [:]) == nil)
        #expect(try StoreEvent.lastEventID(in: [.lastEventID: "17"]) == 17)
        for invalid in ["-1", "abc", "1.5", ""] {
            #expect(throws: ProblemDetails.self) { try StoreEvent.lastEventID(in: [.lastEventID: invalid]) }
        }
    }
}
