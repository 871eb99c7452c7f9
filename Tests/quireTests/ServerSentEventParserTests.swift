import StoreClient
import Testing

/// The client's `text/event-stream` parser: WHATWG's interpretation, and a bound on what a crafted stream can make
/// it hold.
@Suite("Server-sent event parser")
struct ServerSentEventParserTests {
    @Test("Events split anywhere between chunks, with CRLF, LF or CR line ends, comments and a BOM")
    func chunksAndLineEnds() throws {
        let stream = Array("\u{FEFF}: hello\r\nid: 7\r\nevent: changed\r\ndata: a\rdata: b\n\n: keep-alive\n\ndata: c\n\n".utf8)
        for split in 0...stream.count {
            var parser = ServerSentEventParser()
            let events = try parser.consume(stream[..<split]) + parser.consume(stream[split...])
            #expect(events == [
                ServerSentEventMessage(lastEventID: "7", event: "changed", data: "a\nb"),
                ServerSentEventMessage(lastEventID: "7", event: "message", data: "c"),
            ], "split at \(split)")
            #expect(parser.lastEventID == "7")
        }
    }

    @Test("A line without end or data without a blank line stop at the bound instead of taking all memory")
    func boundedEvent() throws {
        var parser = ServerSentEventParser(maximumEventBytes: 1024)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 256)
        #expect(try parser.consume(Array("data: ".utf8)) == [])
        var accepted = 6
        #expect(throws: ServerSentEventParser.EventTooLarge(maximumEventBytes: 1024)) {
            while accepted < 1 << 20 {  // a stream that never ends its line: the parser must give up, early
                _ = try parser.consume(chunk)
                accepted += chunk.count
            }
        }
        #expect(accepted <= 1024)
        #expect(throws: ServerSentEventParser.EventTooLarge.self) { try parser.consume(Array("\n\n".utf8)) }
        // Many short data lines of one event count together.
        var lines = ServerSentEventParser(maximumEventBytes: 1024)
        #expect(throws: ServerSentEventParser.EventTooLarge.self) {
            for _ in 0..<1000 { _ = try lines.consume(Array("data: 0123456789\n".utf8)) }
        }
    }

    @Test("Comments and events within the bound go on for ever")
    func longStreamWithinBound() throws {
        var parser = ServerSentEventParser(maximumEventBytes: 64)
        var count = 0
        for index in 0..<10_000 {
            count += try parser.consume(Array(": keep-alive \(index)\nid: \(index)\ndata: {\"n\":\(index)}\n\n".utf8)).count
            _ = try parser.consume(Array(": a comment line without a blank line after it\n".utf8))
        }
        #expect(count == 10_000)
    }
}
