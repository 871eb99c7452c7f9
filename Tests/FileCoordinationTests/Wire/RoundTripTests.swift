#if DEBUG  // @testable needs a debug build (or -enable-testing)
import CoordinationArbiter
import Testing

@testable import FileCoordination

/// Every frame type survives encoding and decoding unchanged, and the byte layout is the documented one.
@Suite struct RoundTripTests {
    /// The samples cover every frame type.
    @Test func samplesCoverEveryFrameType() {
        let covered = Set(SampleFrames.frames.map(\.type))
        #expect(covered == Set(WireFrameType.allCases))
    }

    /// Each sample decodes to itself, from exactly its own bytes, with the documented header.
    @Test(arguments: SampleFrames.frames) func roundTrip(_ frame: WireFrame) throws {
        let bytes = WireTesting.encode(frame)
        #expect(bytes.count >= 5)
        #expect(Array(bytes[0..<4]) == WireTesting.le(UInt32(bytes.count - 4)))
        #expect(bytes[4] == frame.type.rawValue)
        var decoder = WireDecoder()
        decoder.append(bytes)
        #expect(try decoder.next() == frame)
        #expect(try decoder.next() == nil)
        #expect(decoder.bufferedByteCount == 0)
    }

    /// Frame type codes are fixed: a peer of another build must read the same numbers.
    @Test func frameTypeCodes() {
        let codes = WireFrameType.allCases.map { "\($0)" }
        #expect(
            codes == [
                "hello(0x01)", "welcome(0x02)", "refused(0x03)", "presenterRegistered(0x10)", "presenterMoved(0x11)",
                "presenterRemoved(0x12)", "accessRequested(0x13)", "accessEnded(0x14)", "itemMoved(0x15)",
                "cancelRequested(0x16)", "presenterReplied(0x17)", "snapshotRequest(0x18)", "redeclared(0x19)",
                "versionsChanged(0x1a)", "packageExtensions(0x1b)", "grant(0x20)",
                "fail(0x21)", "deliver(0x22)", "snapshotResponse(0x23)", "handOverBoard(0x24)",
            ])
    }

    /// The bytes of small frames, written out: little-endian integers, `u16` component counts, `u32` lengths.
    @Test func byteLayout() throws {
        #expect(
            try WireEncoder.encode(.accessEnded(RequestID(0x0102_0304_0506_0708)))
                == [13, 0, 0, 0, 0x14, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0])
        let presence = [nil, ItemPresence(existedBefore: false, existsAfter: true), ItemPresence(existedBefore: true, existsAfter: false)]
        #expect(
            try WireEncoder.encode(.accessEnded(RequestID(1), presence: presence))
                == [16, 0, 0, 0, 0x14, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 5, 3])
        #expect(
            try WireEncoder.encode(.grant(RequestID(1), paths: ["/é"], reportsPresence: true))
                == [22, 0, 0, 0, 0x20, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0xC3, 0xA9, 1])
        #expect(
            try WireEncoder.encode(.presenterMoved(PresenterID(2), path: nil))
                == [10, 0, 0, 0, 0x11, 2, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(
            try WireEncoder.encode(.hello(version: 1, pid: -2, commandLine: "q"))
                == [12, 0, 0, 0, 0x01, 1, 0, 0xFE, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 0x71])
    }

    /// Appending to a reused buffer gives the frames back to back; a failed frame leaves the buffer as it was.
    @Test func appendingToReusedBuffer() throws {
        var buffer: [UInt8] = [0xAA]
        for frame in SampleFrames.frames { try WireEncoder.encode(frame, appendingTo: &buffer) }
        #expect(buffer == [0xAA] + SampleFrames.stream)
        let before = buffer
        #expect(throws: WireError.invalidPath(.grant)) {
            try WireEncoder.encode(.grant(RequestID(1), paths: [ItemPath(components: ["a/b"])]), appendingTo: &buffer)
        }
        #expect(buffer == before)
    }

    /// A frame of exactly the maximum length goes through; one byte more is refused by the encoder.
    @Test func maximumFrameLength() throws {
        // Type byte, u32 string length, string.
        let longest = String(repeating: "x", count: WireProtocol.maximumFrameLength - 5)
        let bytes = try WireEncoder.encode(.refused(reason: longest))
        #expect(bytes.count == WireProtocol.maximumFrameLength + 4)
        #expect(try WireTesting.decodeAll(bytes).get() == [.refused(reason: longest)])
        #expect(throws: WireError.frameTooLarge(length: WireProtocol.maximumFrameLength + 1)) {
            try WireEncoder.encode(.refused(reason: longest + "x"))
        }
    }

    /// Values the protocol cannot carry are refused when encoding, never sent for the peer to reject.
    @Test func unencodableValues() {
        #expect(throws: WireError.invalidPath(.itemMoved)) {
            try WireEncoder.encode(.itemMoved(RequestID(1), from: "/a", to: ItemPath(components: ["x", "y/z"])))
        }
        let deep = ItemPath(components: (0...Int(UInt16.max)).map { _ in "d" })
        #expect(throws: WireError.invalidPath(.fail)) { try WireEncoder.encode(.fail(RequestID(1), .timedOut(deep))) }
        // An in-process host's failure (a table key) is not a remote presenter error.
        #expect(throws: WireError.truncatedPayload(.presenterReplied)) {
            try WireEncoder.encode(.presenterReplied(MessageID(1), failure: PresenterFailure(encoded: [1, 0, 0, 0])))
        }
        let valid = SampleFrames.presenterFailure.encoded
        #expect(throws: WireError.trailingBytes(.fail, count: 1)) {
            try WireEncoder.encode(.fail(RequestID(1), .presenterFailed(PresenterFailure(encoded: valid + [0]))))
        }
    }

    /// The deepest path the protocol carries (65,535 components) round-trips.
    @Test func deepestPath() throws {
        let deepest = ItemPath(components: (0..<Int(UInt16.max)).map { "\($0 % 10)" })
        let frame = WireFrame.fail(RequestID(1), .timedOut(deepest))
        #expect(try WireTesting.decodeAll(WireEncoder.encode(frame)).get() == [frame])
    }
}
#endif
