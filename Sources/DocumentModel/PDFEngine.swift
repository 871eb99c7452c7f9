import Foundation
import PDFTypes

/// What a ``Document`` needs of a PDF library: the seam between the document model (providers, coordination,
/// conflicts, saving) and the code that parses PDFs.
///
/// Two engines exist. `Documents` has the in-process one (poppler in the caller's process; the default of
/// `Document(url:)` and `Document(dataProviders:)`, for library users). The document-store service has one
/// backed by sandboxed worker processes, so that the service itself never parses a PDF: a crash or a hang in the
/// parser costs a killed worker, never the service.
///
/// An engine is called from any thread, and may block (a worker-backed engine waits for its worker): a
/// ``Document`` calls it on the caller's thread, never on Swift's cooperative pool of its own accord.
public protocol PDFEngine: Sendable {
    /// Opens the PDF in `data`, with `password` when it is encrypted.
    /// - Throws: a `PDFError` when the bytes are not a usable PDF or the password is missing or wrong; an
    ///   engine's own error when it could not do the work (a worker that crashed, say).
    func openDocument(_ data: Data, password: String?) throws -> any PDFEngineDocument
}

/// A ``PDFEngine`` that can be given the fingerprint of the bytes it opens (known to whoever read or wrote them),
/// so that it need not hash them again.
package protocol FingerprintedPDFEngine: PDFEngine {
    /// Opens the PDF in `data`, whose fingerprint is `fingerprint`, as ``PDFEngine/openDocument(_:password:)``.
    /// - Throws: as ``PDFEngine/openDocument(_:password:)``.
    func openDocument(_ data: Data, fingerprint: ContentFingerprint, password: String?) throws
        -> any PDFEngineDocument
}

/// One opened PDF of a ``PDFEngine``: what a ``Document`` reads of one data provider, and the edits it keeps
/// until it saves. Safe to call from any thread. Page indexes count from 0 within this PDF.
public protocol PDFEngineDocument: AnyObject, Sendable {
    /// The number of pages.
    var pageCount: Int { get }
    /// Whether the PDF is encrypted (opened with a password, or with an owner password only).
    var isEncrypted: Bool { get }
    /// The Info-dictionary metadata, with unsaved edits.
    var metadata: PDFMetadata { get }
    /// A page's size in points and its label.
    /// - Throws: `PDFError.pageOutOfRange` or a failure of the engine.
    func pageInfo(at index: Int) throws -> PDFPageInfo
    /// A page's text in reading order.
    /// - Throws: `PDFError.pageOutOfRange` or a failure of the engine.
    func text(ofPageAt index: Int) throws -> String
    /// Where `text` occurs on a page (PDF page space).
    /// - Throws: `PDFError.pageOutOfRange`, `PDFError.invalidArgument` for an empty text, or a failure of the engine.
    func find(_ text: String, onPageAt index: Int, caseSensitive: Bool) throws -> [PDFRect]
    /// A page rendered as PNG at `dpi` (at most `PDFLimits.maximumDPI`), with unsaved annotations.
    /// - Throws: `PDFError.pageOutOfRange`, `.invalidResolution`, `.imageTooLarge`, or a failure of the engine.
    func renderPNG(pageAt index: Int, dpi: Double) throws -> Data
    /// Replaces the metadata (an unsaved edit).
    /// - Throws: a failure of the engine.
    func setMetadata(_ metadata: PDFMetadata) throws
    /// Adds a note or a highlight to a page (an unsaved edit).
    /// - Throws: `PDFError.pageOutOfRange`, `PDFError.invalidArgument` for an unusable rectangle or kind, or a
    ///   failure of the engine.
    func addAnnotation(_ annotation: PDFAnnotation, toPageAt index: Int) throws
    /// The PDF with its edits, as a complete file (what a save writes).
    /// - Throws: a failure of the engine.
    func dataRepresentation() throws -> Data
}
