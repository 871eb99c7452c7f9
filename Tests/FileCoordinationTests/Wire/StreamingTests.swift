#if DEBUG  // @testable needs a debug build (or -enable-testing)
import CoordinationArbiter
import Testing

@testable import FileCoordination

/// The decoder returns each frame as soon as its last byte arrives, however the reads split the stream.
@Suite struct StreamingTests {
    /// The sample frames with the offset in ``SampleFrames/stream`` just past each one.
    private static let framesAndEnds: [(frame: WireFrame, end: Int)] = {
        var end = 0
        return SampleFrames.frames.map { frame in
            end += WireTesting.encode(frame).count
            return (frame, end)
        }
    }()

    /// One byte per read: nothing before a frame's last byte, exactly that frame on it.
    @Test func oneByteAtATime() throws {
        let stream = SampleFrames.stream
        let ends = Dictionary(uniqueKeysWithValues: Self.framesAndEnds.map { ($0.end, $0.frame) })
        var decoder = WireDecoder()
        var received = 0
        for (index, byte) in stream.enumerated() {
            [byte].withUnsafeBytes { decoder.append($0) }
            let frames = try WireTesting.drain(&decoder).get()
            if let expected = ends[index + 1] {
                #expect(frames == [expected])
                received += 1
            } else {
                #expect(frames.isEmpty)
            }
        }
        #expect(received == SampleFrames.frames.count)
        #expect(decoder.bufferedByteCount == 0)
    }

    /// Random read sizes (seeded), from single bytes to several frames per read.
    @Test(arguments: [1, 2, 3, 42, 0xDEAD_BEEF]) func randomChunks(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let stream = Array(repeating: SampleFrames.stream, count: 5).flatMap { $0 }
        let expected = Array(repeating: SampleFrames.frames, count: 5).flatMap { $0 }
        var decoder = WireDecoder()
        var frames: [WireFrame] = []
        var offset = 0
        while offset < stream.count {
            let size = min(
                stream.count - offset, Int.random(in: 1...(Bool.random(using: &random) ? 16 : 4096), using: &random))
            stream[offset..<(offset + size)].withUnsafeBytes { decoder.append($0) }
            offset += size
            frames += try WireTesting.drain(&decoder).get()
        }
        #expect(frames == expected)
        #expect(decoder.bufferedByteCount == 0)
    }

    /// All frames in one read.
    @Test func manyFramesInOneRead() throws {
        #expect(try WireTesting.decodeAll(SampleFrames.stream).get() == SampleFrames.frames)
    }

    /// A long-lived connection: many frames through one decoder, with a partial frame left over at every read.
    @Test func longConnection() throws {
        let frame = WireFrame.grant(RequestID(7), paths: [SampleFrames.documentPath])
        let bytes = WireTesting.encode(frame)
        let stream = Array(repeating: bytes, count: 20_000).flatMap { $0 }
        var decoder = WireDecoder()
        var count = 0
        var offset = 0
        while offset < stream.count {
            let size = min(stream.count - offset, 1_000)
            stream[offset..<(offset + size)].withUnsafeBytes { decoder.append($0) }
            offset += size
            for received in try WireTesting.drain(&decoder).get() {
                #expect(received == frame)
                count += 1
            }
            #expect(decoder.bufferedByteCount < bytes.count)
        }
        #expect(count == 20_000)
    }

    /// An incomplete frame stays buffered: a length announcing more bytes than arrived gives nil, not an error.
    @Test func incompleteFrameWaits() throws {
        var decoder = WireDecoder()
        decoder.append(WireTesting.le(UInt32(WireProtocol.maximumFrameLength)) + [WireFrameType.refused.rawValue])
        #expect(try decoder.next() == nil)
        #expect(decoder.bufferedByteCount == 5)
    }
}
#endif
