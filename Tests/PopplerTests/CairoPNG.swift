import CPoppler
import Foundation
import Poppler

/// cairo's own PNG writer and reader, used to check that libpng-encoded pages carry exactly cairo's pixels.
enum CairoPNG {
    private final class Buffer {
        var bytes: [UInt8] = []
        var readOffset = 0
    }

    /// Encodes a bitmap with `cairo_surface_write_to_png_stream`.
    static func encode(_ bitmap: PDFBitmap) -> [UInt8] {
        var pixels = bitmap.pixels
        let buffer = Buffer()
        pixels.withUnsafeMutableBufferPointer { raw in
            let surface = cairo_image_surface_create_for_data(
                raw.baseAddress, CAIRO_FORMAT_RGB24, Int32(bitmap.width), Int32(bitmap.height), Int32(bitmap.stride))
            defer { cairo_surface_destroy(surface) }
            _ = cairo_surface_write_to_png_stream(surface, { closure, data, length in
                let buffer = Unmanaged<Buffer>.fromOpaque(closure!).takeUnretainedValue()
                buffer.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(buffer).toOpaque())
        }
        return buffer.bytes
    }

    /// Decodes a PNG with cairo: (width, height, one 0x00RRGGBB word per pixel, row by row).
    static func decode(_ png: [UInt8]) -> (width: Int, height: Int, pixels: [UInt32])? {
        let buffer = Buffer()
        buffer.bytes = png
        let surface = cairo_image_surface_create_from_png_stream({ closure, data, length in
            let buffer = Unmanaged<Buffer>.fromOpaque(closure!).takeUnretainedValue()
            let count = Int(length)
            guard buffer.readOffset + count <= buffer.bytes.count, let data else { return CAIRO_STATUS_READ_ERROR }
            buffer.bytes.withUnsafeBufferPointer { source in
                data.update(from: source.baseAddress! + buffer.readOffset, count: count)
            }
            buffer.readOffset += count
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(buffer).toOpaque())
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface)
        else { return nil }
        let width = Int(cairo_image_surface_get_width(surface))
        let height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        var pixels: [UInt32] = []
        pixels.reserveCapacity(width * height)
        for row in 0..<height {
            let words = UnsafeRawPointer(data + row * stride).assumingMemoryBound(to: UInt32.self)
            for column in 0..<width { pixels.append(words[column] & 0x00FF_FFFF) }
        }
        return (width, height, pixels)
    }
}
