import Foundation
import Poppler
import Testing

@Suite("Opening documents")
struct OpeningTests {
    @Test("a one-page PDF opens with its page count and metadata")
    func onePage() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        #expect(document.pageCount == 1)
        #expect(document.metadata.title == "One Page Fixture")
        #expect(document.metadata.author == "Fixture Author")
        #expect(!document.isEncrypted)
        #expect(document.permissions == .full)
    }

    @Test("a 100-page PDF has 100 A4 pages")
    func hundredPages() throws {
        let document = try PDFDocument(data: Fixture.data("hundred-pages.pdf"))
        #expect(document.pageCount == 100)
        let size = try document.pageSize(at: 99)
        #expect(abs(size.width - 595.28) < 0.01 && abs(size.height - 841.89) < 0.01)
    }

    @Test("non-ASCII metadata comes back as the same Unicode text")
    func nonASCIIMetadata() throws {
        let metadata = try PDFDocument(data: Fixture.data("metadata.pdf")).metadata
        #expect(metadata.title == "Métadonnées – テスト Title")
        #expect(metadata.author == "Zoë Müller")
        #expect(metadata.subject == "Fixture subject")
        #expect(metadata.keywords == "alpha, beta, gamma")
        #expect(metadata.creator == "fpdf2 fixture script")
        #expect(metadata.creationDate == Date(timeIntervalSince1970: 1_704_164_645))  // 2024-01-02T03:04:05Z
    }

    @Test("mixed page sizes and orientations, with a rotated page's sides swapped")
    func mixedSizes() throws {
        let document = try PDFDocument(data: Fixture.data("mixed-sizes.pdf"))
        #expect(document.pageCount == 4)
        let sizes = try (0..<4).map { try document.pageSize(at: $0) }
        let rounded = sizes.map { [($0.width * 100).rounded() / 100, ($0.height * 100).rounded() / 100] }
        #expect(rounded == [[595.28, 841.89], [792, 612], [419.53, 595.28], [792, 612]])
    }

    @Test("page labels are read from the document")
    func pageLabels() throws {
        let document = try PDFDocument(data: Fixture.data("page-labels.pdf"))
        let labels = try (0..<document.pageCount).map { try document.pageLabel(at: $0) }
        #expect(labels == ["i", "ii", "1", "2", "3", "A-1"])
        #expect(try document.pageInfo(at: 5).label == "A-1")
    }

    @Test("a document without labels reports page numbers")
    func defaultLabels() throws {
        let document = try PDFDocument(data: Fixture.data("hundred-pages.pdf"))
        #expect(try document.pageLabel(at: 41) == "42")
    }

    @Test("a linearized PDF opens and says so")
    func linearized() throws {
        let document = try PDFDocument(data: Fixture.data("linearized.pdf"))
        #expect(document.pageCount == 100)
        #expect(document.isLinearized)
        #expect(try !PDFDocument(data: Fixture.data("hundred-pages.pdf")).isLinearized)
    }

    @Test("an existing note and highlight are listed")
    func existingAnnotations() throws {
        let document = try PDFDocument(data: Fixture.data("annotations.pdf"))
        let annotations = try document.annotations(onPageAt: 0)
        #expect(annotations.contains { $0.kind == .note && $0.contents == "Fixture note" })
        #expect(annotations.contains { $0.kind == .highlight && $0.contents == "Fixture highlight" })
        #expect(try document.annotations(onPageAt: 1).isEmpty)
    }

    @Test("a real-world PDF (pdf.js hello world) opens and has text")
    func realWorld() throws {
        let document = try PDFDocument(data: Fixture.data("libjs-pdf-helloworld.pdf"))
        #expect(document.pageCount == 1)
        #expect(try document.text(ofPageAt: 0).contains("Hello"))
    }
}
