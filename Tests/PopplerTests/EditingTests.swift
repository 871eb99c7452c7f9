import Foundation
import Poppler
import Testing

@Suite("Editing and saving")
struct EditingTests {
    @Test("metadata written and saved reads back the same, non-ASCII included")
    func metadataRoundTrip() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        let modified = Date(timeIntervalSince1970: 1_750_000_000)
        let written = PDFMetadata(
            title: "Neuer Titel – 新しい", author: "Zoë", subject: "Subject", keywords: "a, b",
            creator: "Quire tests", producer: "Quire", creationDate: created, modificationDate: modified)
        document.metadata = written
        #expect(document.metadata == written)
        let reopened = try PDFDocument(data: document.dataRepresentation())
        #expect(reopened.metadata == written)
        #expect(reopened.pageCount == 1)
        #expect(try reopened.text(ofPageAt: 0).contains("Hello from page one."))
    }

    @Test("writing to a descriptor gives the whole edited file, as dataRepresentation does", arguments: [
        "one-page.pdf", "hundred-pages.pdf",
    ])
    func writeToDescriptor(fixture: String) throws {
        let document = try PDFDocument(data: Fixture.data(fixture))
        var metadata = document.metadata
        metadata.title = "Written to a descriptor"
        document.metadata = metadata
        try document.addAnnotation(
            PDFAnnotation(kind: .note, rect: PDFRect(x: 10, y: 10, width: 20, height: 20), contents: "fd"),
            toPageAt: 0)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("quire-fd-\(UUID()).pdf")
        defer { try? FileManager.default.removeItem(at: url) }
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        try document.write(toDescriptor: descriptor)
        close(descriptor)
        // poppler 22.12 alone leaves the tail in an unflushed buffer: the file must be whole.
        let written = try Data(contentsOf: url)
        #expect(written.count == (try document.dataRepresentation()).count)
        let reopened = try PDFDocument(data: written)
        #expect(reopened.metadata.title == "Written to a descriptor")
        #expect(try reopened.annotations(onPageAt: 0).contains { $0.contents == "fd" })
    }

    @Test("a nil metadata entry removes it")
    func metadataRemoval() throws {
        let document = try PDFDocument(data: Fixture.data("metadata.pdf"))
        var metadata = document.metadata
        metadata.author = nil
        metadata.keywords = nil
        document.metadata = metadata
        let reopened = try PDFDocument(data: document.dataRepresentation())
        #expect(reopened.metadata.author == nil)
        #expect(reopened.metadata.keywords == nil)
        #expect(reopened.metadata.title == "Métadonnées – テスト Title")
    }

    @Test("a note and a highlight are added, saved, listed and removed")
    func annotationsRoundTrip() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        let note = PDFAnnotation(kind: .note, rect: PDFRect(x: 72, y: 600, width: 24, height: 24), contents: "Check this")
        let highlight = PDFAnnotation(
            kind: .highlight, rect: PDFRect(x: 72, y: 716, width: 150, height: 16), contents: "Greeting")
        try document.addAnnotation(note, toPageAt: 0)
        try document.addAnnotation(highlight, toPageAt: 0)

        let saved = try PDFDocument(data: document.dataRepresentation())
        let listed = try saved.annotations(onPageAt: 0)
        #expect(listed.map(\.kind) == [.note, .highlight])
        #expect(listed.map(\.contents) == ["Check this", "Greeting"])
        let highlightRect = try #require(listed.last?.rect)
        #expect(abs(highlightRect.x - 72) < 1 && abs(highlightRect.y - 716) < 1)
        #expect(abs(highlightRect.width - 150) < 1 && abs(highlightRect.height - 16) < 1)

        try saved.removeAnnotation(at: 0, onPageAt: 0)
        let afterRemoval = try PDFDocument(data: saved.dataRepresentation())
        #expect(try afterRemoval.annotations(onPageAt: 0).map(\.contents) == ["Greeting"])
    }

    @Test("removing an annotation that does not exist is .annotationOutOfRange")
    func removeMissing() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        #expect(throws: PDFError.annotationOutOfRange(page: 0, index: 0)) { try document.removeAnnotation(at: 0, onPageAt: 0) }
        #expect(throws: PDFError.annotationOutOfRange(page: 0, index: -1)) { try document.removeAnnotation(at: -1, onPageAt: 0) }
    }

    @Test("an annotation with an unusable rectangle or kind is refused")
    func badAnnotation() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        let bad = [
            PDFAnnotation(kind: .note, rect: PDFRect(x: 0, y: 0, width: 0, height: 10), contents: ""),
            PDFAnnotation(kind: .note, rect: PDFRect(x: .nan, y: 0, width: 5, height: 10), contents: ""),
            PDFAnnotation(kind: .other("Ink"), rect: PDFRect(x: 0, y: 0, width: 5, height: 10), contents: ""),
        ]
        for annotation in bad {
            #expect(throws: PDFError.self) { try document.addAnnotation(annotation, toPageAt: 0) }
        }
        #expect(try document.annotations(onPageAt: 0).isEmpty)
    }

    @Test("saving an unchanged document gives a PDF that opens with the same pages")
    func saveUnchanged() throws {
        let document = try PDFDocument(data: Fixture.data("page-labels.pdf"))
        let copy = try PDFDocument(data: document.dataRepresentation())
        #expect(copy.pageCount == document.pageCount)
        #expect(try copy.pageLabel(at: 5) == "A-1")
    }
}
