import CPoppler
import Synchronization
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// poppler builds some process-global colour state lazily and without a lock (prior-art §4.2): the first render
/// of the process runs alone, later ones run freely on their own documents.
private let firstRenderDone = Mutex(false)

extension PDFDocument {
    /// Renders a page on white at `dpi` and returns the pixels.
    /// - Throws: `PDFError.pageOutOfRange`, `.invalidResolution` (not finite, ≤ 0 or above ``maximumDPI``),
    ///   `.imageTooLarge` (above ``maximumRenderPixels``), `.operationFailed` if cairo fails.
    public func renderBitmap(pageAt index: Int, dpi: Double) throws(PDFError) -> PDFBitmap {
        try render(pageAt: index, dpi: dpi) { data, width, height, stride in
            PDFBitmap(
                width: width, height: height, stride: stride,
                pixels: Array(UnsafeBufferPointer(start: data, count: stride * height)))
        }
    }

    /// Renders a page on white at `dpi` and encodes it as an 8-bit RGB PNG with libpng.
    /// - Parameters:
    ///   - index: The page, from 0.
    ///   - dpi: The resolution, in dots per inch.
    ///   - compressionLevel: zlib level 0–9; the default 1 is several times faster than cairo's own writer.
    /// - Throws: as ``renderBitmap(pageAt:dpi:)``, and `.operationFailed` if PNG encoding fails.
    public func renderPNG(pageAt index: Int, dpi: Double, compressionLevel: Int = 1) throws(PDFError) -> Data {
        try render(pageAt: index, dpi: dpi) { data, width, height, stride throws(PDFError) in
            try PNGEncoder.encode(
                pixels: data, width: width, height: height, stride: stride, compressionLevel: compressionLevel)
        }
    }

    /// The pixel size of a page rendered at `dpi`: each side is `ceil(points × dpi / 72)`, at least 1, and `Int.max`
    /// when it does not fit an `Int` (a hostile page size).
    /// - Throws: `PDFError.pageOutOfRange` or `.invalidResolution`.
    public func renderSize(pageAt index: Int, dpi: Double) throws(PDFError) -> (width: Int, height: Int) {
        try Self.validate(dpi: dpi)
        let size = try pageSize(at: index)
        return Self.pixels(size, dpi: dpi)
    }

    private static func validate(dpi: Double) throws(PDFError) {
        guard dpi.isFinite, dpi > 0, dpi <= maximumDPI else { throw .invalidResolution(dpi) }
    }

    /// The pixel size at `dpi`, saturated: a PDF may declare any page size, 10³⁰ points included.
    private static func pixels(_ size: PDFPageSize, dpi: Double) -> (width: Int, height: Int) {
        func side(_ points: Double) -> Int {
            let pixels = (points * dpi / 72).rounded(.up)
            if pixels.isNaN || pixels >= Double(Int.max) { return .max }
            return pixels < 1 ? 1 : Int(pixels)
        }
        return (side(size.width), side(size.height))
    }

    /// Renders into a cairo `RGB24` surface and hands its pixels to `body` while the surface is alive.
    private func render<T: Sendable>(
        pageAt index: Int, dpi: Double,
        _ body: (UnsafePointer<UInt8>, Int, Int, Int) throws(PDFError) -> T
    ) throws(PDFError) -> T {
        try Self.validate(dpi: dpi)
        func draw() throws(PDFError) -> T {
            try self.withPage(index) { _, page throws(PDFError) -> T in
                var points = PDFPageSize(width: 0, height: 0)
                poppler_page_get_size(page, &points.width, &points.height)
                let (width, height) = Self.pixels(points, dpi: dpi)
                let (area, overflow) = width.multipliedReportingOverflow(by: height)
                guard !overflow, area <= Self.maximumRenderPixels else {
                    throw .imageTooLarge(width: width, height: height)
                }
                guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else {
                    throw .operationFailed(operation: "rendering page \(index + 1)", reason: "cairo could not allocate")
                }
                defer { cairo_surface_destroy(surface) }
                guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
                    let reason = String(cString: cairo_status_to_string(cairo_surface_status(surface)))
                    throw .operationFailed(operation: "rendering page \(index + 1)", reason: reason)
                }
                let context = cairo_create(surface)
                cairo_set_source_rgb(context, 1, 1, 1)
                cairo_paint(context)
                cairo_scale(context, dpi / 72, dpi / 72)
                poppler_page_render(page, context)
                let status = cairo_status(context)
                cairo_destroy(context)
                guard status == CAIRO_STATUS_SUCCESS else {
                    throw .operationFailed(
                        operation: "rendering page \(index + 1)", reason: String(cString: cairo_status_to_string(status)))
                }
                cairo_surface_flush(surface)
                guard let data = cairo_image_surface_get_data(surface) else {
                    throw .operationFailed(operation: "rendering page \(index + 1)", reason: "cairo surface has no data")
                }
                return try body(UnsafePointer(data), width, height, Int(cairo_image_surface_get_stride(surface)))
            }
        }
        if firstRenderDone.withLock({ $0 }) { return try draw() }
        return try firstRenderDone.withLock { done throws(PDFError) -> T in
            let result = try draw()
            done = true
            return result
        }
    }
}
