import DocumentModel
import Foundation
import Poppler

/// The PDF engine of library users: poppler-glib in this process (the `Poppler` module). The default engine of
/// `Document(url:)` and `Document(dataProviders:)`.
///
/// Fast (nothing crosses a process boundary) but unprotected: a PDF that crashes poppler crashes the caller, and
/// one that takes long holds the caller's thread. Code that opens PDFs from strangers should run them in worker
/// processes, as the document-store service does.
public struct InProcessPDFEngine: PDFEngine {
    /// The engine (it has no state of its own).
    public init() {}

    /// Opens `data` with poppler.
    /// - Throws: a `PDFError` (`.empty`, `.damaged`, `.invalid`, `.encrypted` for a missing or wrong password).
    public func openDocument(_ data: Data, password: String?) throws -> any PDFEngineDocument {
        InProcessPDFDocument(pdf: try PDFDocument(data: data, password: password))
    }
}

/// A PDF opened by ``InProcessPDFEngine``: poppler's document, whose own lock makes it safe from any thread.
final class InProcessPDFDocument: PDFEngineDocument {
    let pdf: PDFDocument

    init(pdf: PDFDocument) { self.pdf = pdf }

    var pageCount: Int { pdf.pageCount }
    var isEncrypted: Bool { pdf.isEncrypted }
    var metadata: PDFMetadata { pdf.metadata }

    func pageInfo(at index: Int) throws -> PDFPageInfo { try pdf.pageInfo(at: index) }
    func text(ofPageAt index: Int) throws -> String { try pdf.text(ofPageAt: index) }

    func find(_ text: String, onPageAt index: Int, caseSensitive: Bool) throws -> [PDFRect] {
        try pdf.find(text, onPageAt: index, caseSensitive: caseSensitive)
    }

    func renderPNG(pageAt index: Int, dpi: Double) throws -> Data { try pdf.renderPNG(pageAt: index, dpi: dpi) }
    func setMetadata(_ metadata: PDFMetadata) throws { pdf.metadata = metadata }

    func addAnnotation(_ annotation: PDFAnnotation, toPageAt index: Int) throws {
        try pdf.addAnnotation(annotation, toPageAt: index)
    }

    func dataRepresentation() throws -> Data { try pdf.dataRepresentation() }
}

extension Document {
    /// Opens the file at `url` with poppler in this process, through a `CoordinatedFileDataProvider`, or a
    /// plain `FileDataProvider` when `fileCoordinationEnabled` is false (then the document hears of no changes).
    public convenience init(url: URL, fileCoordinationEnabled: Bool = true) {
        self.init(url: url, fileCoordinationEnabled: fileCoordinationEnabled, engine: InProcessPDFEngine())
    }

    /// Opens a document whose pages are those of `dataProviders`, in order, with poppler in this process.
    /// Coordinated providers get the document as their `CoordinatedFileDataProviding/coordinationDelegate`.
    /// Providers that fail to open are kept, with 0 pages and their error in `errors`.
    public convenience init(dataProviders: [any DataProviding]) {
        self.init(dataProviders: dataProviders, engine: InProcessPDFEngine())
    }
}
