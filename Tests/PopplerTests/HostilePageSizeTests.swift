import Foundation
import Poppler
import Testing

/// A page may declare any size: a MediaBox of 10³⁰ points made the pixel size overflow `Int` and trap in
/// `renderSize` and in every render (found while writing the fuzz target in Fuzz/, reproduced with its binary).
@Suite("Hostile page sizes")
struct HostilePageSizeTests {
    /// one-page.pdf with its MediaBox replaced (poppler repairs the shifted cross-reference offsets).
    static func document(mediaBox: String) throws -> PDFDocument {
        let original = try String(decoding: Fixture.data("one-page.pdf"), as: UTF8.self)
        let changed = original.replacingOccurrences(of: "/MediaBox [ 0 0 612 792 ]", with: "/MediaBox [\(mediaBox)]")
        #expect(changed != original)
        return try PDFDocument(data: Data(changed.utf8))
    }

    @Test("a page of 10³⁰ points is .imageTooLarge, and its render size saturates")
    func hugePage() throws {
        let side = String(repeating: "9", count: 30)
        let document = try Self.document(mediaBox: "0 0 \(side) \(side)")
        let size = try document.renderSize(pageAt: 0, dpi: 1)
        #expect(size.width == .max && size.height == .max)
        #expect {
            try document.renderPNG(pageAt: 0, dpi: 1)
        } throws: { error in
            guard case .imageTooLarge = error as? PDFError else { return false }
            return true
        }
    }

    @Test("a page whose sides multiply past Int.max is .imageTooLarge")
    func overflowingArea() throws {
        let document = try Self.document(mediaBox: "0 0 99999999999999 99999999999999")
        #expect {
            try document.renderBitmap(pageAt: 0, dpi: 72)
        } throws: { error in
            guard case .imageTooLarge = error as? PDFError else { return false }
            return true
        }
    }
}
