import Foundation
import PDFTypes
import PDFWorkerWire
import Testing

/// The worker's summaries, the edit logs and the find results round-trip; hostile ones are refused.
@Suite("PDF worker payloads")
struct PDFWorkerPayloadTests {
    static let metadata = PDFMetadata(
        title: "Tïtle", author: nil, subject: "", keywords: "a, b", creator: nil, producer: "p",
        creationDate: Date(timeIntervalSince1970: 1_700_000_000.5), modificationDate: nil)

    static let summary = PDFWorkerSummary(
        isEncrypted: true,
        pages: [.init(width: 612, height: 792, label: "i"), .init(width: 100.25, height: 50, label: nil)],
        metadata: metadata)

    static let edits: [PDFWorkerEdit] = [
        .setMetadata(metadata),
        .addAnnotation(kind: 2, page: 3, x: 1, y: 2, width: 30.5, height: 4, contents: "highlight ✓"),
        .addAnnotation(kind: 1, page: 0, x: 0, y: 0, width: 1, height: 1, contents: ""),
    ]

    @Test("Requests with every field, summaries, edit logs and rectangles round-trip")
    func roundTrip() throws {
        let request = PDFWorkerRequest(
            operation: .find, pageIndex: 2, password: "pw", argument: "needle", caseSensitive: true,
            editsLength: 1234)
        #expect(try PDFWorkerRequest(decoding: request.encoded()) == request)
        for operation in PDFWorkerRequest.Operation.allCases {
            let plain = PDFWorkerRequest(operation: operation, pageIndex: 0)
            #expect(try PDFWorkerRequest(decoding: plain.encoded()) == plain)
        }
        #expect(try PDFWorkerSummary(decoding: Self.summary.encoded()) == Self.summary)
        #expect(try PDFWorkerEdit.decode(PDFWorkerEdit.encode(Self.edits)) == Self.edits)
        #expect(try PDFWorkerEdit.decode(PDFWorkerEdit.encode([])) == [])
        let rects = try PDFWorkerRects.decode(PDFWorkerRects.encode([(1, 2, 3, 4), (5, 6, 7, 8)]))
        #expect(rects.map { [$0.x, $0.y, $0.width, $0.height] } == [[1, 2, 3, 4], [5, 6, 7, 8]])
        let batch = PDFWorkerRequest(operation: .texts, pageIndex: 32, pageCount: 32)
        #expect(try PDFWorkerRequest(decoding: batch.encoded()) == batch)
        let texts = ["page one", "", "pâge ✓ three\n"]
        #expect(try PDFWorkerTexts.decode(PDFWorkerTexts.encode(texts)) == texts)
        #expect(try PDFWorkerTexts.decode(PDFWorkerTexts.encode([])) == [])
    }

    @Test("A page's text over the bound is cut at a character boundary by the worker, refused by the service")
    func textBound() throws {
        let limit = PDFWorkerTexts.maximumPageLength
        // "é" is two bytes: a cut at an odd byte count would split one.
        let long = "a" + String(repeating: "é", count: limit / 2 + 10)
        let decoded = try PDFWorkerTexts.decode(PDFWorkerTexts.encode([long]))
        #expect(decoded.count == 1)
        #expect(decoded[0].utf8.count == limit - 1)
        #expect(long.hasPrefix(decoded[0]))
        var forged = PDFWorkerTexts.encode(["x"])
        forged.replaceSubrange(8..<12, with: withUnsafeBytes(of: UInt32(limit + 1).littleEndian, Array.init))
        forged += [UInt8](repeating: 0x61, count: limit)
        #expect(throws: PDFWorkerWireError.fieldTooLong("text")) { try PDFWorkerTexts.decode(forged) }
        var invalid = PDFWorkerTexts.encode(["ab"])
        invalid[invalid.count - 1] = 0xFF
        #expect(throws: PDFWorkerWireError.unknownValue("text")) { try PDFWorkerTexts.decode(invalid) }
    }

    @Test("Every truncation and any trailing byte is refused")
    func truncations() throws {
        let encodings: [(String, [UInt8], ([UInt8]) throws -> Void)] = [
            ("summary", Self.summary.encoded(), { _ = try PDFWorkerSummary(decoding: $0) }),
            ("edits", PDFWorkerEdit.encode(Self.edits), { _ = try PDFWorkerEdit.decode($0) }),
            ("rects", PDFWorkerRects.encode([(1, 2, 3, 4)]), { _ = try PDFWorkerRects.decode($0) }),
            ("texts", PDFWorkerTexts.encode(["one", "two"]), { _ = try PDFWorkerTexts.decode($0) }),
        ]
        for (name, bytes, decode) in encodings {
            for length in 0..<bytes.count {
                #expect(throws: PDFWorkerWireError.self, "\(name) cut at \(length)") { try decode(Array(bytes.prefix(length))) }
            }
            #expect(throws: PDFWorkerWireError.trailingBytes(1), "\(name)") { try decode(bytes + [0]) }
        }
    }

    @Test("Counts that promise more than the bytes hold are refused before anything is reserved")
    func lyingCounts() throws {
        var summary = PDFWorkerSummary(isEncrypted: false, pages: [], metadata: .init()).encoded()
        summary.replaceSubrange(5..<9, with: [0xff, 0xff, 0xff, 0xff])
        #expect(throws: PDFWorkerWireError.truncated) { try PDFWorkerSummary(decoding: summary) }
        var edits = PDFWorkerEdit.encode([])
        edits.replaceSubrange(4..<8, with: [0xff, 0xff, 0xff, 0x7f])
        #expect(throws: PDFWorkerWireError.truncated) { try PDFWorkerEdit.decode(edits) }
        var rects = PDFWorkerRects.encode([])
        rects.replaceSubrange(4..<8, with: [0xff, 0xff, 0xff, 0xff])
        #expect(throws: PDFWorkerWireError.truncated) { try PDFWorkerRects.decode(rects) }
        var texts = PDFWorkerTexts.encode([])
        texts.replaceSubrange(4..<8, with: [0xff, 0xff, 0xff, 0xff])
        #expect(throws: PDFWorkerWireError.truncated) { try PDFWorkerTexts.decode(texts) }
        // An unknown edit, an unknown annotation kind, a presence byte that is neither 0 nor 1.
        var unknown = PDFWorkerEdit.encode([Self.edits[1]])
        unknown[8] = 9
        #expect(throws: PDFWorkerWireError.unknownValue("edit")) { try PDFWorkerEdit.decode(unknown) }
        var kind = PDFWorkerEdit.encode([Self.edits[1]])
        kind[9] = 3
        #expect(throws: PDFWorkerWireError.unknownValue("annotation kind")) { try PDFWorkerEdit.decode(kind) }
        var presence = PDFWorkerSummary(isEncrypted: false, pages: [], metadata: .init()).encoded()
        presence[9] = 2
        #expect(throws: PDFWorkerWireError.unknownValue("title")) { try PDFWorkerSummary(decoding: presence) }
    }

    @Test("A request's flags, argument and edit-log length are bounded")
    func requestBounds() throws {
        #expect(throws: PDFWorkerWireError.fieldTooLong("argument")) {
            try PDFWorkerRequest(operation: .find, pageIndex: 0, argument: String(repeating: "x", count: 1025)).encoded()
        }
        #expect(throws: PDFWorkerWireError.fieldTooLong("edit log")) {
            try PDFWorkerRequest(operation: .save, pageIndex: 0, editsLength: UInt32(PDFWorkerMessage.maximumEditsLength + 1))
                .encoded()
        }
        var flags = try PDFWorkerRequest(operation: .text, pageIndex: 0).encoded()
        flags[5] = 4
        #expect(throws: PDFWorkerWireError.unknownValue("flags")) { try PDFWorkerRequest(decoding: flags) }
    }
}

/// Small results travel inline in the reply; anything else after the message is refused.
@Suite("PDF worker replies with inline results")
struct PDFWorkerInlineReplyTests {
    @Test("An inline result round-trips, up to the bound")
    func roundTrip() throws {
        for result in [[UInt8](), Array("page text".utf8), [UInt8](repeating: 7, count: PDFWorkerMessage.maximumInlineResult)] {
            let reply = PDFWorkerReply.succeeded(inline: result)
            let packet = reply.encoded()
            #expect(packet.count <= PDFWorkerMessage.maximumReplySize)
            #expect(try PDFWorkerReply(decoding: packet) == reply)
        }
    }

    @Test("Bytes after a failure's message, a length that disagrees, or an inline result over the bound are refused")
    func hostile() throws {
        let failure = PDFWorkerReply(status: .damaged, message: "no").encoded()
        #expect(throws: PDFWorkerWireError.trailingBytes(1)) { try PDFWorkerReply(decoding: failure + [0]) }
        let lying = PDFWorkerReply(status: .succeeded, resultLength: 5).encoded() + [1, 2, 3]
        #expect(throws: PDFWorkerWireError.trailingBytes(3)) { try PDFWorkerReply(decoding: lying) }
        let count = PDFWorkerMessage.maximumInlineResult + 1
        let over = PDFWorkerReply(status: .succeeded, resultLength: UInt64(count)).encoded()
            + [UInt8](repeating: 0, count: count)
        #expect(throws: PDFWorkerWireError.trailingBytes(count)) { try PDFWorkerReply(decoding: over) }
    }
}
