import DocumentModel
import Foundation
import PDFTypes
import PDFWorkerWire
import Synchronization

/// The service's PDF engine: every parse happens in a `quire-pdf worker` process of the pool, with the
/// deadline, never in the service's own process (which does not even map poppler).
///
/// Workers are stateless: each request carries the PDF (a sealed memfd) and, for a document with unsaved edits,
/// the edit log (a second memfd); the worker opens the PDF, replays the log, and does its one operation. What a
/// document shows without rendering (page count, sizes, labels, metadata, encryption) comes from one `probe`
/// when it opens and is kept here, so info and page lists never touch a worker. A worker that dies loses
/// nothing: the bytes and the log live in the service.
struct WorkerPDFEngine: FingerprintedPDFEngine {
    /// The workers.
    let pool: PDFWorkerPool
    /// Remembers the summaries of bytes opened lately (an upload is probed once, not again by its first open).
    let summaries: PDFSummaryCache
    /// The document the work is for: the pool's fairness key (one running request per document, round-robin).
    let key: String

    /// Opens `data` in a worker: every page's size and label and the metadata are read there, within the
    /// deadline.
    /// - Throws: `PDFError` (`.empty`, `.damaged`, `.encrypted` for a missing or wrong password), or a
    ///   ``PDFWorkError`` when the worker crashed, missed its deadline, or none was free.
    func openDocument(_ data: Data, password: String?) throws -> any PDFEngineDocument {
        try openDocument(data, fingerprint: ContentFingerprint(of: data), password: password)
    }

    /// Opens `data`, whose fingerprint is `contents` (the key of the remembered summaries), as
    /// ``openDocument(_:password:)``.
    /// - Throws: as ``openDocument(_:password:)``.
    func openDocument(_ data: Data, fingerprint contents: ContentFingerprint, password: String?) throws
        -> any PDFEngineDocument
    {
        guard !data.isEmpty else { throw PDFError.empty }
        // One memfd for the probe and every later request of the document.
        let payload = PDFWorkPayload(data)
        let summary: PDFWorkerSummary
        if password == nil, let known = summaries.summary(for: contents) {
            summary = known
        } else {
            let request = PDFWorkerRequest(operation: .probe, pageIndex: 0, password: password)
            let bytes = try Self.translatingRefusals { try pool.runBlocking(request, pdf: payload, key: key) }
            summary = try Self.decodeSummary(bytes)
            if !summary.isEncrypted { summaries.insert(summary, for: contents) }
        }
        return WorkerPDFDocument(
            pool: pool, key: key, payload: payload, password: summary.isEncrypted ? password : nil, summary: summary)
    }

    /// Probes `data`, whose fingerprint is `contents`, in a worker without blocking a thread (new content, checked
    /// before it enters the store), and remembers the summary.
    /// - Throws: as ``openDocument(_:password:)``, or `CancellationError`.
    func probe(_ data: Data, fingerprint contents: ContentFingerprint, password: String?) async throws
        -> PDFWorkerSummary
    {
        guard !data.isEmpty else { throw PDFError.empty }
        let request = PDFWorkerRequest(operation: .probe, pageIndex: 0, password: password)
        let bytes: Data
        do {
            bytes = try await pool.run(request, pdf: data, key: key)
        } catch let error as PDFWorkError {
            throw Self.translated(error)
        }
        let summary = try Self.decodeSummary(bytes)
        if !summary.isEncrypted { summaries.insert(summary, for: contents) }
        return summary
    }

    static func decodeSummary(_ bytes: Data) throws(PDFWorkError) -> PDFWorkerSummary {
        do {
            return try PDFWorkerSummary(decoding: Array(bytes))
        } catch {
            throw .workerCrashed("it answered a malformed summary (\(error))")
        }
    }

    /// Runs `body`, turning a worker's refusal into the `PDFError` poppler would have thrown in-process.
    static func translatingRefusals<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PDFWorkError {
            throw translated(error)
        }
    }

    /// A worker's refusal as the `PDFError` poppler gave it; any other failure as it is.
    static func translated(_ error: PDFWorkError) -> any Error {
        guard case .refused(let reply) = error else { return error }
        switch reply.status {
        case .passwordRequired: return PDFError.encrypted
        case .damaged: return PDFError.damaged
        case .pageOutOfRange: return PDFError.invalidArgument(reply.message)
        case .invalidArgument: return PDFError.invalidArgument(reply.message)
        case .failed, .succeeded: return PDFError.operationFailed(operation: "PDF work", reason: reply.message)
        }
    }
}

/// A PDF opened by ``WorkerPDFEngine``: its bytes, its summary, and its unsaved edits as a log the workers
/// replay. Reads of the summary answer at once; text, find, render and save go to a worker (blocking the calling
/// thread in the synchronous members; ``perform(_:)`` waits without blocking one).
final class WorkerPDFDocument: PDFEngineDocument {
    private let pool: PDFWorkerPool
    private let key: String
    /// The PDF as it was opened, and the memfd it travels to the workers in.
    let payload: PDFWorkPayload
    /// The PDF as it was opened.
    var data: Data { payload.data }
    /// The password that opened it (nil when it needs none).
    let password: String?
    private let summary: PDFWorkerSummary
    private struct Edits {
        var log: [PDFWorkerEdit] = []
        var metadata: PDFMetadata
    }
    private let edits: Mutex<Edits>

    init(pool: PDFWorkerPool, key: String, payload: PDFWorkPayload, password: String?, summary: PDFWorkerSummary) {
        self.pool = pool
        self.key = key
        self.payload = payload
        self.password = password
        self.summary = summary
        edits = Mutex(Edits(metadata: summary.metadata))
    }

    var pageCount: Int { summary.pages.count }
    var isEncrypted: Bool { summary.isEncrypted }
    var metadata: PDFMetadata { edits.withLock { $0.metadata } }

    /// The unsaved edits, oldest first.
    var editLog: [PDFWorkerEdit] { edits.withLock { $0.log } }

    func pageInfo(at index: Int) throws -> PDFPageInfo {
        guard summary.pages.indices.contains(index) else { throw PDFError.pageOutOfRange(index) }
        let page = summary.pages[index]
        return PDFPageInfo(index: index, size: PDFPageSize(width: page.width, height: page.height), label: page.label)
    }

    func text(ofPageAt index: Int) throws -> String {
        try checkPage(index)
        return String(decoding: try runBlocking(request(.text, page: index)), as: UTF8.self)
    }

    func find(_ text: String, onPageAt index: Int, caseSensitive: Bool) throws -> [PDFRect] {
        try checkPage(index)
        guard !text.isEmpty else { throw PDFError.invalidArgument("the text to find is empty") }
        guard text.utf8.count <= PDFWorkerMessage.maximumArgumentLength else {
            throw PDFError.invalidArgument(
                "the text to find is longer than \(PDFWorkerMessage.maximumArgumentLength) bytes")
        }
        var request = request(.find, page: index)
        request.argument = text
        request.caseSensitive = caseSensitive
        let bytes = try runBlocking(request)
        do {
            return try PDFWorkerRects.decode(Array(bytes)).map {
                PDFRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height)
            }
        } catch {
            throw PDFWorkError.workerCrashed("it answered malformed rectangles (\(error))")
        }
    }

    func renderPNG(pageAt index: Int, dpi: Double) throws -> Data {
        try checkPage(index)
        guard dpi.isFinite, dpi > 0, dpi <= PDFLimits.maximumDPI else { throw PDFError.invalidResolution(dpi) }
        var request = request(.renderPNG, page: index)
        request.dpi = UInt32(dpi.rounded())
        return try runBlocking(request)
    }

    func setMetadata(_ metadata: PDFMetadata) throws {
        let edit = PDFWorkerEdit.setMetadata(metadata)
        edits.withLock { edits in
            edits.log.append(edit)
            edits.metadata = metadata
        }
    }

    func addAnnotation(_ annotation: PDFAnnotation, toPageAt index: Int) throws {
        try checkPage(index)
        guard annotation.rect.isUsable else {
            throw PDFError.invalidArgument("the annotation rectangle must be finite with a positive width and height")
        }
        let kind: UInt8
        switch annotation.kind {
        case .note: kind = 1
        case .highlight: kind = 2
        case .other(let subtype):
            throw PDFError.invalidArgument(
                "annotations of subtype \(subtype) cannot be created; use a note or a highlight")
        }
        let rect = annotation.rect
        let edit = PDFWorkerEdit.addAnnotation(
            kind: kind, page: UInt32(index), x: rect.x, y: rect.y, width: rect.width, height: rect.height,
            contents: annotation.contents)
        edits.withLock { $0.log.append(edit) }
    }

    func dataRepresentation() throws -> Data {
        let log = editLog
        if log.isEmpty { return data }
        return try WorkerPDFEngine.translatingRefusals {
            try pool.runBlocking(request(.save, page: 0), pdf: payload, edits: log, key: key)
        }
    }

    /// Runs `request` (built by ``request(_:page:)``) in a worker with the current edits, without blocking a
    /// thread.
    /// - Throws: a ``PDFWorkError`` (a refusal included, for the caller to map), or `CancellationError`.
    func perform(_ request: PDFWorkerRequest) async throws -> Data {
        try await pool.run(request, pdf: payload, edits: editLog, key: key)
    }

    /// A request of this document's for page `page`, with its password.
    func request(_ operation: PDFWorkerRequest.Operation, page: Int) -> PDFWorkerRequest {
        PDFWorkerRequest(operation: operation, pageIndex: UInt32(clamping: page), password: password)
    }

    private func runBlocking(_ request: PDFWorkerRequest) throws -> Data {
        let log = editLog
        return try WorkerPDFEngine.translatingRefusals {
            try pool.runBlocking(request, pdf: payload, edits: log, key: key)
        }
    }

    private func checkPage(_ index: Int) throws(PDFError) {
        guard summary.pages.indices.contains(index) else { throw .pageOutOfRange(index) }
    }
}

/// The summaries of the last 256 unencrypted PDFs a worker opened, by content: bytes probed when they entered
/// the store (an upload, a new content) are not probed again when their document first opens.
final class PDFSummaryCache: Sendable {
    private struct Entries {
        var order: [ContentFingerprint] = []
        var summaries: [ContentFingerprint: PDFWorkerSummary] = [:]
    }
    private let entries = Mutex(Entries())
    private let capacity = 256

    /// The summary of `contents`, if it was opened lately.
    func summary(for contents: ContentFingerprint) -> PDFWorkerSummary? {
        entries.withLock { $0.summaries[contents] }
    }

    /// Remembers the summary of `contents` (the oldest is forgotten beyond the capacity).
    func insert(_ summary: PDFWorkerSummary, for contents: ContentFingerprint) {
        entries.withLock { entries in
            if entries.summaries.updateValue(summary, forKey: contents) == nil { entries.order.append(contents) }
            if entries.order.count > capacity { entries.summaries.removeValue(forKey: entries.order.removeFirst()) }
        }
    }
}
