#if DEBUG  // @testable needs a debug build (or -enable-testing)
import CoordinationArbiter
import Testing

@testable import FileCoordination

/// A quick measurement of the codec's hot path (printed, not asserted: timings depend on the machine and on the
/// build configuration; run `swift test -c release --filter Throughput` for the numbers that matter).
@Suite struct ThroughputTests {
    /// The frames of one uncontended coordinated write: the request and its grant.
    private static let hotFrames: [(name: String, frame: WireFrame)] = [
        (
            "accessRequested",
            .accessRequested(
                RequestID(123_456), purpose: SampleFrames.purpose, intents: [.writing(SampleFrames.documentPath)],
                timeout: 30_000_000_000, nestedIn: nil, reclaim: false)
        ),
        ("grant", .grant(RequestID(123_456), paths: [SampleFrames.documentPath])),
    ]

    /// Encodes into a reused buffer, feeds the bytes to a decoder and takes the frame out; then each half alone.
    @Test func encodeDecodeHotFrames() throws {
        #if DEBUG
            let iterations = 2_000
        #else
            let iterations = 200_000
        #endif
        for (name, frame) in Self.hotFrames {
            var buffer: [UInt8] = []
            buffer.reserveCapacity(256)
            var decoder = WireDecoder()
            var decodedCount = 0
            let both = try Self.bestTime(iterations) {
                buffer.removeAll(keepingCapacity: true)
                try WireEncoder.encode(frame, appendingTo: &buffer)
                buffer.withUnsafeBytes { decoder.append($0) }
                if case .some = try decoder.next() { decodedCount += 1 }
            }
            let encode = try Self.bestTime(iterations) {
                buffer.removeAll(keepingCapacity: true)
                try WireEncoder.encode(frame, appendingTo: &buffer)
            }
            let decode = try Self.bestTime(iterations) {
                buffer.withUnsafeBytes { decoder.append($0) }
                if case .some = try decoder.next() { decodedCount += 1 }
            }
            print(
                "wire \(name) (\(buffer.count) bytes): \(both) ns per encode+decode (encode \(encode) ns, decode "
                    + "\(decode) ns; best of 5 x \(iterations))")
            #expect(decodedCount == 10 * iterations)
        }
    }

    /// The best time of five runs of `iterations` calls of `body`, in nanoseconds per call.
    private static func bestTime(_ iterations: Int, _ body: () throws -> Void) throws -> Int {
        let clock = ContinuousClock()
        var best = Duration.seconds(1_000)
        for _ in 0..<5 {
            best = min(best, try clock.measure { for _ in 0..<iterations { try body() } })
        }
        let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) * 1e-18
        return Int((seconds / Double(iterations) * 1e9).rounded())
    }
}
#endif
