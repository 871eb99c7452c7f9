#if DEBUG  // @testable needs a debug build (or -enable-testing)
import CoordinationArbiter
@testable import FileCoordination

/// Helpers shared by the wire tests.
enum WireTesting {
    /// The bytes of `frame`; the samples are always encodable.
    static func encode(_ frame: WireFrame) -> [UInt8] {
        do { return try WireEncoder.encode(frame) } catch { fatalError("sample frame failed to encode: \(error)") }
    }

    /// Decodes all complete frames in `bytes`; the outcome is the frames, or the first error.
    static func decodeAll(_ bytes: [UInt8]) -> Result<[WireFrame], WireError> {
        var decoder = WireDecoder()
        decoder.append(bytes)
        return drain(&decoder)
    }

    /// Takes every complete frame out of `decoder`; the outcome is the frames, or the first error.
    static func drain(_ decoder: inout WireDecoder) -> Result<[WireFrame], WireError> {
        var frames: [WireFrame] = []
        do throws(WireError) {
            while let frame = try decoder.next() { frames.append(frame) }
            return .success(frames)
        } catch {
            return .failure(error)
        }
    }

    /// A frame made by hand: the length field, `type` and `payload`.
    static func frame(type: UInt8, payload: [UInt8]) -> [UInt8] {
        le(UInt32(payload.count + 1)) + [type] + payload
    }

    /// The little-endian bytes of an integer.
    static func le<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// A hand-made wire string: `u32` length and the bytes.
    static func string(_ utf8: [UInt8]) -> [UInt8] { le(UInt32(utf8.count)) + utf8 }

    /// A hand-made wire path.
    static func path(_ components: [[UInt8]]) -> [UInt8] {
        le(UInt16(components.count)) + components.flatMap { string($0) }
    }

    /// The error that decoding `bytes` throws, or nil if it throws none.
    static func error(decoding bytes: [UInt8]) -> WireError? {
        switch decodeAll(bytes) {
        case .success: return nil
        case .failure(let error): return error
        }
    }
}
#endif
