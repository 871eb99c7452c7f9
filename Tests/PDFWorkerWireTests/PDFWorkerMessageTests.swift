import PDFWorkerWire
import Testing

/// Worker packets round-trip, and hostile ones are refused with a typed error, never a crash.
@Suite("PDF worker messages")
struct PDFWorkerMessageTests {
    @Test("Requests and replies round-trip")
    func roundTrip() throws {
        for request in [
            PDFWorkerRequest(operation: .renderPNG, pageIndex: 7, dpi: 144, password: "pässword"),
            PDFWorkerRequest(operation: .text, pageIndex: 0),
            PDFWorkerRequest(operation: .text, pageIndex: .max, password: ""),
        ] {
            #expect(try PDFWorkerRequest(decoding: request.encoded()) == request)
        }
        for reply in [
            PDFWorkerReply(status: .succeeded, resultLength: 1 << 40),
            PDFWorkerReply(status: .damaged, message: "the document is damaged"),
        ] {
            #expect(try PDFWorkerReply(decoding: reply.encoded()) == reply)
        }
    }

    @Test("Truncated, padded, unknown and oversized packets are refused")
    func hostilePackets() throws {
        let packet = try PDFWorkerRequest(operation: .renderPNG, pageIndex: 1, dpi: 72, password: "pw").encoded()
        for length in 0..<packet.count {
            #expect(throws: PDFWorkerWireError.self) { try PDFWorkerRequest(decoding: Array(packet.prefix(length))) }
        }
        #expect(throws: PDFWorkerWireError.trailingBytes(1)) { try PDFWorkerRequest(decoding: packet + [0]) }
        var unknown = packet
        unknown[4] = 99
        #expect(throws: PDFWorkerWireError.unknownValue("operation")) { try PDFWorkerRequest(decoding: unknown) }
        #expect(throws: PDFWorkerWireError.fieldTooLong("password")) {
            try PDFWorkerRequest(operation: .text, pageIndex: 0, password: String(repeating: "x", count: 5000))
                .encoded()
        }
        // A failure may not claim a result.
        var claiming = PDFWorkerReply(status: .damaged).encoded()
        claiming[7] = 1
        #expect(throws: PDFWorkerWireError.self) { try PDFWorkerReply(decoding: claiming) }
    }

    @Test("Random bytes never crash the decoders (seeded, 20,000 packets)")
    func randomPackets() {
        var generator = SeededGenerator(seed: 0x5157_5031)
        let valid =
            (try? PDFWorkerRequest(operation: .renderPNG, pageIndex: 3, dpi: 150, password: "x").encoded()) ?? []
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                bytes = valid
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
            }
            _ = try? PDFWorkerRequest(decoding: bytes)
            _ = try? PDFWorkerReply(decoding: bytes)
        }
    }
}

/// SplitMix64: a reproducible random sequence.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
