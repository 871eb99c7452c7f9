import Foundation
import Poppler
import Testing

@Suite("Rendering")
struct RenderingTests {
    @Test("a page renders at the size its points and resolution give, on white, with dark text")
    func renderBitmap() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        let bitmap = try document.renderBitmap(pageAt: 0, dpi: 72)
        #expect(bitmap.width == 612 && bitmap.height == 792)
        #expect(bitmap.rgb(x: 0, y: 0) == (255, 255, 255))
        // "Hello from page one." is drawn at x = 72, baseline y = 720 from the bottom: rows 60-75 from the top.
        var dark = 0
        for y in 60..<76 {
            for x in 72..<250 where bitmap.rgb(x: x, y: y).red < 128 { dark += 1 }
        }
        #expect(dark > 100)
    }

    @Test("a rotated page renders with its sides swapped")
    func rotatedPage() throws {
        let document = try PDFDocument(data: Fixture.data("mixed-sizes.pdf"))
        let bitmap = try document.renderBitmap(pageAt: 3, dpi: 36)
        #expect(bitmap.width == 396 && bitmap.height == 306)
    }

    @Test("the PNG is a valid 8-bit RGB image of the right size")
    func pngHeader() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        let png = try [UInt8](document.renderPNG(pageAt: 0, dpi: 150))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let width = png[16...19].reduce(0) { $0 << 8 | Int($1) }
        let height = png[20...23].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1275 && height == 1650)
        #expect(png[24] == 8 && png[25] == 2)  // bit depth 8, colour type RGB
    }

    @Test("libpng output carries exactly the pixels of cairo's own PNG writer",
          arguments: ["one-page.pdf", "metadata.pdf", "libjs-pdf-helloworld.pdf"])
    func pixelsMatchCairo(name: String) throws {
        let document = try PDFDocument(data: Fixture.data(name))
        let bitmap = try document.renderBitmap(pageAt: 0, dpi: 100)
        let ours = try #require(CairoPNG.decode([UInt8](bitmap.pngData())))
        let cairos = try #require(CairoPNG.decode(CairoPNG.encode(bitmap)))
        #expect(ours.width == cairos.width && ours.height == cairos.height)
        #expect(ours.pixels == cairos.pixels)
        // And renderPNG is the same encoding of the same render.
        #expect(try document.renderPNG(pageAt: 0, dpi: 100) == bitmap.pngData())
    }

    @Test("every compression level decodes to the same pixels", arguments: [0, 1, 6, 9])
    func compressionLevels(level: Int) throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        let bitmap = try document.renderBitmap(pageAt: 0, dpi: 50)
        let decoded = try #require(CairoPNG.decode([UInt8](bitmap.pngData(compressionLevel: level))))
        let reference = try #require(CairoPNG.decode(CairoPNG.encode(bitmap)))
        #expect(decoded.pixels == reference.pixels)
    }

    @Test("separate documents render in parallel without crashing")
    func parallelRender() async throws {
        let data = try Fixture.data("hundred-pages.pdf")
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for page in 0..<8 {
                group.addTask { try PDFDocument(data: data).renderPNG(pageAt: page, dpi: 60).count }
            }
            var sizes: [Int] = []
            for try await size in group { sizes.append(size) }
            return sizes
        }
        #expect(sizes.count == 8 && sizes.allSatisfy { $0 > 1000 })
    }
}
