import CPNG
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A rendered page: opaque pixels in cairo's `RGB24` layout (one native-endian 32-bit word `0x00RRGGBB` per pixel).
public struct PDFBitmap: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from the start of one row to the next.
    public let stride: Int
    /// `height * stride` bytes of pixels.
    public let pixels: [UInt8]

    /// Creates a bitmap from rows of `RGB24` pixels.
    public init(width: Int, height: Int, stride: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.stride = stride
        self.pixels = pixels
    }

    /// The red, green and blue components of the pixel at (`x`, `y`), `y` counted from the top row.
    public func rgb(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let word = pixels.withUnsafeBytes { $0.load(fromByteOffset: y * stride + x * 4, as: UInt32.self) }
        return (UInt8((word >> 16) & 0xFF), UInt8((word >> 8) & 0xFF), UInt8(word & 0xFF))
    }

    /// Encodes the bitmap as an 8-bit RGB PNG with libpng.
    /// - Parameter compressionLevel: zlib level 0–9; 1 (the default) is fast and what the CLI uses.
    /// - Throws: `PDFError.operationFailed` with libpng's message if encoding fails.
    public func pngData(compressionLevel: Int = 1) throws(PDFError) -> Data {
        try pixels.withUnsafeBufferPointer { buffer throws(PDFError) in
            try PNGEncoder.encode(
                pixels: buffer.baseAddress!, width: width, height: height, stride: stride,
                compressionLevel: compressionLevel)
        }
    }
}

/// Encodes `RGB24` pixel rows as PNG through the `CPNG` shim (libpng).
enum PNGEncoder {
    static func encode(
        pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, compressionLevel: Int
    ) throws(PDFError) -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = quire_png_encode_rgb24(
            pixels, Int32(width), Int32(height), Int32(stride), Int32(max(0, min(9, compressionLevel))),
            &output, &length, &message, message.count)
        guard status == 0, let output else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .operationFailed(operation: "encoding PNG", reason: reason.isEmpty ? "libpng failed" : reason)
        }
        defer { quire_png_free(output) }
        return Data(bytes: output, count: length)
    }
}
