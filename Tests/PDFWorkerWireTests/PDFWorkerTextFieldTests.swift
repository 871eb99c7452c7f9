import PDFWorkerWire
import Testing

/// Text fields (a request's password, a reply's message) must be UTF-8: a decoder that replaced bad bytes with
/// U+FFFD accepted packets it could not re-encode (found by `make fuzz`, FuzzWire's round-trip check).
@Suite("PDF worker text fields")
struct PDFWorkerTextFieldTests {
    @Test("A reply whose message is not UTF-8 is refused (the fuzzer's reproducer)")
    func replyMessageNotUTF8() {
        // magic, invalidArgument, message length 12, result length 0, "re\u{8D}\u{90}\u{93}\u{89}tion 0"
        let packet: [UInt8] =
            [0x51, 0x50, 0x57, 0x33, 0x04, 0x0C, 0x00] + [UInt8](repeating: 0, count: 8)
            + [0x72, 0x65, 0x8D, 0x90, 0x93, 0x89] + Array("tion 0".utf8)
        #expect(throws: PDFWorkerWireError.unknownValue("message")) { try PDFWorkerReply(decoding: packet) }
    }

    @Test("A request whose password is not UTF-8 is refused, even at the length bound")
    func requestPasswordNotUTF8() throws {
        let empty = try PDFWorkerRequest(operation: .text, pageIndex: 0, password: "").encoded()
        let length = PDFWorkerMessage.maximumPasswordLength
        // 1,024 bytes 0xFF would have decoded to 3,072 bytes of U+FFFD, over the bound encoded() enforces.
        // Layout: magic(4) operation flags page(4) pageCount(4) dpi(4) passwordLength(2) password
        // argumentLength(2) argument editsLength(4).
        var packet = Array(empty.prefix(18)) + [UInt8(length & 0xFF), UInt8(length >> 8)]
        packet += [UInt8](repeating: 0xFF, count: length)
        packet += Array(empty.suffix(6))
        #expect(throws: PDFWorkerWireError.unknownValue("password")) { try PDFWorkerRequest(decoding: packet) }
    }

    @Test("An argument or an edit's text that is not UTF-8 is refused")
    func otherTextNotUTF8() throws {
        var request = try PDFWorkerRequest(operation: .find, pageIndex: 0, argument: "ab").encoded()
        request[request.count - 6] = 0xFF
        #expect(throws: PDFWorkerWireError.unknownValue("argument")) { try PDFWorkerRequest(decoding: request) }
        var edits = PDFWorkerEdit.encode([
            .addAnnotation(kind: 1, page: 0, x: 0, y: 0, width: 1, height: 1, contents: "ab")
        ])
        edits[edits.count - 1] = 0xFF
        #expect(throws: PDFWorkerWireError.unknownValue("contents")) { try PDFWorkerEdit.decode(edits) }
    }

    @Test("UTF-8 text at the bounds still round-trips byte for byte")
    func utf8AtTheBounds() throws {
        let request = PDFWorkerRequest(
            operation: .renderPNG, pageIndex: 1, dpi: 72,
            password: String(repeating: "é", count: PDFWorkerMessage.maximumPasswordLength / 2))
        let packet = try request.encoded()
        #expect(try PDFWorkerRequest(decoding: packet) == request)
        #expect(try PDFWorkerRequest(decoding: packet).encoded() == packet)
        let reply = PDFWorkerReply(
            status: .failed, message: String(repeating: "テ", count: PDFWorkerMessage.maximumMessageLength / 3))
        #expect(try PDFWorkerReply(decoding: reply.encoded()) == reply)
        #expect(try PDFWorkerReply(decoding: reply.encoded()).encoded() == reply.encoded())
    }
}
