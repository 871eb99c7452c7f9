import Foundation
import Poppler
import Testing

@Suite("Text and search")
struct TextTests {
    @Test("text of a page is extracted")
    func pageText() throws {
        let document = try PDFDocument(data: Fixture.data("hundred-pages.pdf"))
        let text = try document.text(ofPageAt: 41)
        #expect(text.hasPrefix("Page 42 of 100"))
        #expect(text.contains("Line 45 on page 42"))
    }

    @Test("find returns one rectangle per occurrence, in PDF page space")
    func find() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        let hits = try document.find("quick brown", onPageAt: 0)
        #expect(hits.count == 1)
        let hit = try #require(hits.first)
        // The line is drawn at y = 700 from the bottom of a 792-point page.
        #expect(hit.x > 70 && hit.x < 200)
        #expect(hit.y > 690 && hit.y < 715)
        #expect(hit.width > 20 && hit.height > 5)
    }

    @Test("find ignores case unless asked not to")
    func findCase() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        #expect(try document.find("HELLO", onPageAt: 0).count == 1)
        #expect(try document.find("HELLO", onPageAt: 0, caseSensitive: true).isEmpty)
        #expect(try document.find("Hello", onPageAt: 0, caseSensitive: true).count == 1)
        #expect(try document.find("not on this page", onPageAt: 0).isEmpty)
    }

    @Test("finding an empty string is an invalid argument")
    func findEmpty() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        #expect(throws: PDFError.invalidArgument("the text to find is empty")) { try document.find("", onPageAt: 0) }
    }

    @Test("parallel extraction gives exactly the one-thread output, in page order", arguments: [2, 3, 8])
    func parallelMatchesSerial(workers: Int) throws {
        let data = try Fixture.data("hundred-pages.pdf")
        let serial = try PDFTextExtractor.text(of: data, workers: 1)
        let parallel = try PDFTextExtractor.text(of: data, workers: workers)
        #expect(serial.count == 100)
        #expect(parallel == serial)
        #expect(serial[99].hasPrefix("Page 100 of 100"))
    }

    @Test("parallel extraction of chosen pages keeps the order given")
    func chosenPages() throws {
        let data = try Fixture.data("hundred-pages.pdf")
        let texts = try PDFTextExtractor.text(of: data, pages: [9, 2, 50], workers: 2)
        #expect(texts.map { String($0.prefix(16)) } == ["Page 10 of 100\nL", "Page 3 of 100\nLi", "Page 51 of 100\nL"])
    }

    @Test("extraction over documents the caller keeps open gives the one-thread output, and reuses them")
    func keptDocuments() throws {
        let data = try Fixture.data("hundred-pages.pdf")
        let serial = try PDFTextExtractor.text(of: data, workers: 1)
        let documents = [try PDFDocument(data: data), try PDFDocument(data: data)]
        let first = try PDFTextExtractor.text(ofPages: Array(0..<50), in: documents)
        let second = try PDFTextExtractor.text(ofPages: Array(50..<100), in: documents)
        #expect(first + second == serial)
        #expect(try PDFTextExtractor.text(ofPages: [7], in: documents) == [serial[7]])
        #expect(try PDFTextExtractor.text(ofPages: [], in: documents) == [])
        #expect(throws: PDFError.pageOutOfRange(100)) {
            try PDFTextExtractor.text(ofPages: [3, 100], in: documents)
        }
    }

    @Test("parallel extraction reports errors as typed errors")
    func parallelErrors() throws {
        #expect(throws: PDFError.encrypted) {
            try PDFTextExtractor.text(of: Fixture.data("encrypted-aes256.pdf"), password: "nope", workers: 2)
        }
        #expect(throws: PDFError.pageOutOfRange(100)) {
            try PDFTextExtractor.text(of: Fixture.data("hundred-pages.pdf"), pages: [1, 100], workers: 2)
        }
        #expect(throws: PDFError.damaged) {
            try PDFTextExtractor.text(of: Fixture.data("not-a-pdf.pdf"), workers: 2)
        }
    }

    @Test("one document used from many threads at once stays correct (its lock serialises poppler)")
    func sharedDocument() async throws {
        let document = try PDFDocument(data: Fixture.data("hundred-pages.pdf"))
        let texts = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for page in 0..<16 {
                group.addTask { (page, try document.text(ofPageAt: page)) }
            }
            var result: [Int: String] = [:]
            for try await (page, text) in group { result[page] = text }
            return result
        }
        for page in 0..<16 { #expect(texts[page]?.hasPrefix("Page \(page + 1) of 100") == true) }
    }
}
