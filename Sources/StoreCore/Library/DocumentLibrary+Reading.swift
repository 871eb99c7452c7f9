import DocumentModel
import Foundation
import PDFWorkerWire
import PDFTypes

extension DocumentLibrary {
    /// One page of the store's documents (see ``DocumentListing``): oldest first, ties by id.
    /// - Throws: a `CatalogError`.
    public func list(_ listing: DocumentListing) async throws -> DocumentPage {
        try await catalog.documents(listing)
    }

    /// A document's info rendered by `render` (a response body, say) and its tag. The rendering is kept with the
    /// info while the document is open and nothing changes, so that every caller after the first gets it as it
    /// is: `render` runs once per version of the document (and again when a caller renders to another type).
    /// - Throws: as ``info(_:password:)``; what `render` throws.
    public func info<Rendering: Sendable>(
        _ id: DocumentID, password: String?, renderedBy render: (DocumentInfo) throws -> Rendering
    ) async throws -> (Rendering, EntityTag) {
        if let open = state.withLock({ $0.open[id] }), open.accepts(password: password),
            let answers = open.cachedAnswers, open.filesAreCurrent
        {
            return (try open.rendering(of: answers, renderedBy: render), answers.tag)
        }
        let (info, tag) = try await info(id, password: password)
        if let open = state.withLock({ $0.open[id] }), let answers = open.cachedAnswers, answers.tag == tag,
            answers.info == info
        {
            return (try open.rendering(of: answers, renderedBy: render), answers.tag)
        }
        return (try render(info), tag)
    }

    /// A document's info (pages, metadata with unsaved edits, files, state, conflict) and its tag.
    /// - Throws: ``StoreError``: `documentNotFound`, `passwordRequired`; or a `CatalogError`.
    public func info(_ id: DocumentID, password: String?) async throws -> (DocumentInfo, EntityTag) {
        if let open = state.withLock({ $0.open[id] }), open.accepts(password: password), let cached = open.cachedInfo,
            open.filesAreCurrent
        {
            return cached
        }
        return try await lane(id).run {
            let open = try await openDocument(id, password: password)
            try await bringUpToDate(open)
            return try await info(of: open)
        }
    }

    /// The info of an open document, from the catalog record and the document. Call inside its lane. `known`: the
    /// record this lane just stored (inserted, or updated at a version the catalog gave), which the catalog would
    /// give back as it is (no read then).
    func info(of open: OpenDocument, known: DocumentRecord? = nil) async throws
        -> (DocumentInfo, EntityTag)
    {
        if let cached = open.cachedInfo { return cached }
        // Read before the record: an invalidation from here on means the record read may be stale.
        let generation = open.answersGeneration
        let record = if let known { known } else { try await record(open.id) }
        let document = open.document
        let pages = try await blocking { () -> [DocumentInfo.Page] in
            (0..<document.pageCount).compactMap { index in
                guard let page = try? document.pageInfo(at: index) else { return nil }
                return DocumentInfo.Page(
                    number: index + 1, width: page.size.width, height: page.size.height, label: page.label)
            }
        }
        // In a cluster the conflict may be another node's (the document's owner): the record names it.
        let conflict =
            document.conflict.flatMap { DocumentState.ConflictType(rawValue: $0.type.rawValue) }
            ?? record.state.conflictType ?? (record.state == .deleted ? .deletion : nil)
        let info = DocumentInfo(
            id: open.id, validator: record.validator, version: record.version, contentTag: record.etag,
            origin: record.origin, pages: pages, metadata: document.metadata,
            files: open.files.map {
                DocumentInfo.File(path: $0.path, size: $0.size, tag: $0.tag ?? EntityTag(content: Data()))
            },
            state: record.state, conflict: conflict, damage: open.damage, isEncrypted: document.isEncrypted,
            size: record.size, createdAt: record.createdAt, updatedAt: record.updatedAt)
        open.cacheInfo(info, tag: record.validator, builtAt: generation)
        return (info, record.validator)
    }

    /// The bytes of the document's (first) file as last read, and the tag of the document's content. An open
    /// document answers from memory once its files are seen to be the ones those bytes were read from
    /// (``bringUpToDate(_:)``); another is opened first (which checks `password` for an encrypted one) and answers
    /// the bytes that opening read.
    /// - Throws: ``StoreError``: `documentNotFound`; `passwordRequired` for an encrypted document without its
    ///   password or with a wrong one; `unusableFile` or `damagedDocument` when the file cannot be read or the
    ///   document is damaged.
    public func content(_ id: DocumentID, password: String?) async throws -> (Data, EntityTag) {
        try await content(id, password: password, as: { $0 })
    }

    /// The content as ``content(_:password:)`` answers it, made into `Body` by `makeBody` (a response body, say);
    /// the body made of the version the document last answered is kept with its answers, so that every caller
    /// after the first gets it as it is.
    /// - Throws: as ``content(_:password:)``.
    public func content<Body: Sendable>(
        _ id: DocumentID, password: String?, as makeBody: (Data) -> Body
    ) async throws -> (Body, EntityTag) {
        if let known = state.withLock({ $0.open[id] }), known.accepts(password: password), known.filesAreCurrent,
            let cached = known.cachedContent(as: makeBody)
        {
            return cached
        }
        // Opened (or its password tried) and brought up to date in its lane.
        let open: OpenDocument? = try await lane(id).run {
            let open = try await openDocument(id, password: password)
            try await bringUpToDate(open)
            return open
        }
        if let damage = open?.damage { throw StoreError.damagedDocument(id, damage) }
        // Opening read the file; no bytes means that read failed (the file is gone): nothing to serve.
        guard let provider = open?.providers.first, let bytes = provider.lastReadContents else {
            throw StoreError.unusableFile(
                path: "document \(id.rawValue)", reason: "its file could not be read when it was opened")
        }
        return (makeBody(bytes), try await record(id).etag)
    }

    /// The content of an open document that needs no password, whose current version has been answered before,
    /// made into `Body` by `makeBody` (kept with the answers, as ``content(_:password:as:)`` keeps it), and its
    /// tag, at once (no lane, no catalog, no thread pool): what a caller on an event loop can answer with. Nil
    /// otherwise — always for an encrypted document, whose password only the caller checks — and when its file is
    /// not, by its metadata, the one those bytes were read from (one `openat2` and one `fstat`);
    /// ``content(_:password:as:)`` answers every case.
    package func cachedContent<Body: Sendable>(_ id: DocumentID, as makeBody: (Data) -> Body) -> (Body, EntityTag)? {
        guard let open = state.withLock({ $0.open[id] }), open.accepts(password: nil), open.filesAreCurrent else {
            return nil
        }
        return open.cachedContent(as: makeBody)
    }

    /// The text of page `number` (from 1), and the document's tag, extracted by a worker process.
    /// - Throws: ``StoreError``: `documentNotFound`, `pageOutOfRange`, `passwordRequired`, `invalidParameter` for a
    ///   page number below 1, `damagedDocument`, `pdfWorkFailed` (the page took longer than the deadline, no worker
    ///   was free within it, or too many requests are waiting).
    public func pageText(_ id: DocumentID, page number: Int, password: String?) async throws -> (String, EntityTag) {
        let (bytes, tag) = try await inWorker(id, page: number, password: password) { document, index in
            document.request(.text, page: index)
        }
        return (String(decoding: bytes, as: UTF8.self), tag)
    }

    /// Page `number` (from 1) as PNG at `dpi` (1 to the configured maximum), and the document's tag, rendered
    /// by a worker process.
    /// - Throws: as ``pageText(_:page:password:)``; ``StoreError/invalidParameter(_:reason:)`` for a bad resolution.
    public func pageImage(_ id: DocumentID, page number: Int, dpi: Int, password: String?) async throws -> (
        Data, EntityTag
    ) {
        guard dpi >= 1, dpi <= configuration.maxDPI else {
            throw StoreError.invalidParameter(
                "dpi", reason: "dpi must be from 1 to \(configuration.maxDPI), not \(dpi)")
        }
        return try await inWorker(id, page: number, password: password) { document, index in
            var request = document.request(.renderPNG, page: index)
            request.dpi = UInt32(dpi)
            return request
        }
    }

    /// The document's conflict report.
    /// - Throws: ``StoreError``: `documentNotFound`; `passwordRequired` for an encrypted document without its
    ///   password or with a wrong one.
    public func conflictReport(_ id: DocumentID, password: String?) async throws -> ConflictReport {
        var report = try await lane(id).run {
            let record = try await record(id)
            // A document whose files are gone cannot tell whether it was encrypted: only an open one checks.
            let isOpen = state.withLock { $0.open[id] != nil }
            let open = isOpen || record.state != .deleted ? try await openDocument(id, password: password) : nil
            var conflict: ConflictReport.Conflict?
            if let found = open?.document.conflict,
                let type = DocumentState.ConflictType(rawValue: found.type.rawValue)
            {
                conflict = .init(type: type, file: found.dataProvider.fileURL.path)
            } else if record.state == .deleted {
                conflict = .init(type: .deletion, file: record.files.first ?? "")
            } else if case .conflict(let type) = record.state {
                conflict = .init(type: type, file: record.files.first ?? "")
            }
            return ConflictReport(document: id, state: record.state, conflict: conflict)
        }
        // The other side: the file as it is on disk now, read beneath its root as every document file is.
        if let path = report.conflict?.file, !path.isEmpty {
            let provider = FileDataProvider(fileURL: URL(fileURLWithPath: path), confinement: confinement(for: path))
            if let bytes = try? await blocking({ try provider.data() }) {
                report.conflict?.fileSize = bytes.count
                report.conflict?.fileTag = EntityTag(content: bytes)
            }
        }
        return report
    }

    /// Runs a request about page `number` (from 1) in a worker process: on the bytes of the file that holds the
    /// page, with the document's unsaved edits replayed, queued with the document's other requests.
    private func inWorker(
        _ id: DocumentID, page number: Int, password: String?,
        _ makeRequest: (_ document: WorkerPDFDocument, _ index: Int) -> PDFWorkerRequest
    ) async throws -> (Data, EntityTag) {
        guard number >= 1 else {
            throw StoreError.invalidParameter("n", reason: "page numbers start at 1, not \(number)")
        }
        // The version read with the document it answers from: a change that lands while the worker runs leaves
        // this answer tagged with the version it was made from.
        let (open, current) = try await lane(id).run { () async throws -> (OpenDocument, DocumentRecord) in
            let open = try await openDocument(id, password: password)
            try await bringUpToDate(open)
            return (open, try await record(id))
        }
        if let damage = open.damage { throw StoreError.damagedDocument(id, damage) }
        let document = open.document
        guard number <= document.pageCount, let provider = document.dataProvider(forPageAt: number - 1) else {
            throw StoreError.pageOutOfRange(number, pageCount: document.pageCount)
        }
        let (engineDocument, relative) = try document.engineDocument(forPageAt: number - 1)
        guard let pdf = engineDocument as? WorkerPDFDocument else {
            throw StoreError.damagedDocument(id, .init(file: provider.uid, reason: "its bytes are not loaded"))
        }
        let request = makeRequest(pdf, relative)
        let result: Data
        do {
            result = try await pdf.perform(request)
        } catch let error as PDFWorkError {
            let work =
                request.operation == .renderPNG ? "rendering page \(number)" : "extracting the text of page \(number)"
            throw StoreError.pdfWork(
                error, work: "\(work) of document \(id.rawValue)", parameter: request.operation == .renderPNG ? "dpi" : nil)
        }
        return (result, current.validator)
    }
}
