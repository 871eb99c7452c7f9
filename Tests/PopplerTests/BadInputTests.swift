import Foundation
import Poppler
import Testing

@Suite("Bad input gives typed errors")
struct BadInputTests {
    @Test("empty input is .empty")
    func empty() throws {
        #expect(throws: PDFError.empty) { try PDFDocument(data: Fixture.data("empty.pdf")) }
        #expect(throws: PDFError.empty) { try PDFDocument(data: Data()) }
    }

    @Test("damaged, truncated and non-PDF input is .damaged", arguments: ["truncated.pdf", "truncated-tail.pdf", "not-a-pdf.pdf"])
    func damaged(name: String) throws {
        #expect(throws: PDFError.damaged) { try PDFDocument(data: Fixture.data(name)) }
    }

    @Test("random bytes that start like a PDF are rejected with a typed error")
    func garbageAfterHeader() throws {
        var bytes = Array("%PDF-1.7\n".utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<4096 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        #expect(throws: PDFError.self) { try PDFDocument(data: Data(bytes)) }
    }

    @Test("a file whose startxref or xref table is wrong is repaired by poppler and opens",
          arguments: ["bad-xref-offset.pdf", "broken-xref.pdf"])
    func repairedXref(name: String) throws {
        let document = try PDFDocument(data: Fixture.data(name))
        #expect(document.pageCount == 1)
        #expect(try document.text(ofPageAt: 0).contains("Hello from page one."))
    }

    @Test("an encrypted PDF without a password is .encrypted",
          arguments: ["encrypted-aes256.pdf", "encrypted-rc4-128.pdf"])
    func encryptedWithoutPassword(name: String) throws {
        #expect(throws: PDFError.encrypted) { try PDFDocument(data: Fixture.data(name)) }
    }

    @Test("a wrong password, including the empty one, is .encrypted and never crashes",
          arguments: ["encrypted-aes256.pdf", "encrypted-rc4-128.pdf"], ["", "wrong", "userpw ", "ÜSERPW"])
    func wrongPassword(name: String, password: String) throws {
        #expect(throws: PDFError.encrypted) { try PDFDocument(data: Fixture.data(name), password: password) }
    }

    @Test("the user or the owner password opens an encrypted PDF",
          arguments: ["encrypted-aes256.pdf", "encrypted-rc4-128.pdf"], ["userpw", "ownerpw"])
    func rightPassword(name: String, password: String) throws {
        let document = try PDFDocument(data: Fixture.data(name), password: password)
        #expect(document.pageCount == 1)
        #expect(document.isEncrypted)
        #expect(document.neededPassword)
        #expect(try document.text(ofPageAt: 0).contains("Hello from page one."))
    }

    @Test("an owner-password-only PDF opens without a password, is encrypted and forbids printing")
    func ownerOnly() throws {
        let document = try PDFDocument(data: Fixture.data("owner-only-encrypted.pdf"))
        #expect(document.pageCount == 1)
        #expect(document.isEncrypted)
        #expect(!document.neededPassword)
        #expect(!document.permissions.contains(.print))
        // A wrong password does not stop it opening: poppler is asked without one first.
        #expect(try PDFDocument(data: Fixture.data("owner-only-encrypted.pdf"), password: "wrong").pageCount == 1)
    }

    @Test("page indexes outside the document are .pageOutOfRange")
    func pageOutOfRange() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        #expect(throws: PDFError.pageOutOfRange(1)) { try document.text(ofPageAt: 1) }
        #expect(throws: PDFError.pageOutOfRange(-1)) { try document.pageSize(at: -1) }
        #expect(throws: PDFError.pageOutOfRange(7)) { try document.renderPNG(pageAt: 7, dpi: 72) }
        #expect(throws: PDFError.pageOutOfRange(2)) { try document.annotations(onPageAt: 2) }
        #expect(throws: PDFError.pageOutOfRange(1)) { try document.find("Hello", onPageAt: 1) }
    }

    @Test("a resolution that is zero, negative, not finite or above the bound is .invalidResolution",
          arguments: [0, -1, -72, .nan, .infinity, PDFDocument.maximumDPI + 1, 100_000])
    func invalidResolution(dpi: Double) throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        #expect {
            try document.renderPNG(pageAt: 0, dpi: dpi)
        } throws: { error in
            guard case .invalidResolution = error as? PDFError else { return false }
            return true
        }
    }

    @Test("the maximum resolution itself is accepted (size check only)")
    func maximumResolution() throws {
        let document = try PDFDocument(data: Fixture.data("one-page.pdf"))
        let size = try document.renderSize(pageAt: 0, dpi: PDFDocument.maximumDPI)
        #expect(size.width == 10_200 && size.height == 13_200)
    }

    @Test("errors describe themselves in one line")
    func descriptions() {
        let all: [PDFError] = [
            .empty, .encrypted, .damaged, .invalid, .pageOutOfRange(3), .invalidResolution(0),
            .imageTooLarge(width: 1, height: 2), .annotationOutOfRange(page: 0, index: 4), .invalidArgument("x"),
            .operationFailed(operation: "saving", reason: "disk full"),
        ]
        for error in all {
            #expect(!error.description.isEmpty)
            #expect(!error.description.contains("\n"))
        }
        #expect(PDFError.pageOutOfRange(3).description.contains("page 4"))
    }
}
