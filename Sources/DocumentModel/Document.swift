import FileCoordination
import Foundation
import PDFTypes
import Synchronization

/// A PDF document made of one or more data providers, whose pages are concatenated in order.
///
/// The Nutrient model on Linux: a document reads its providers with a ``PDFEngine`` (poppler in this process
/// with `Documents`' convenience initializers; sandboxed worker processes in the document-store service), keeps
/// edits (metadata,
/// annotations) in memory until ``save()``, and is the ``FileCoordinationDelegate`` of its coordinated
/// providers. When another program changes a file, a clean document reloads that provider alone; a document
/// with unsaved changes gets a `.modification` ``conflict`` instead; a deleted file gives a `.deletion` conflict.
/// Each such change is posted as `Notification.Name.documentUnderlyingFileChanged` and offered
/// on ``underlyingFileChanges`` — never for the document's own saves.
///
/// The document does not register its presenters: whoever serves or shows it calls
/// `FilePresenterCoordinator.shared.observe(document.filePresenters)`.
/// All members are safe to call from any thread. A provider that cannot be opened counts 0 pages, and its
/// error is in ``errors``; the other providers still work.
open class Document: FileCoordinationDelegate, @unchecked Sendable {
    struct Part {
        let provider: any DataProviding
        var pdf: (any PDFEngineDocument)?
        var error: DocumentError?
        var isDirty = false
        /// Counts edits, so that a save marks the part clean only if nothing changed while it wrote.
        var edits = 0
        var conflict: FileConflictType?
        var pageCount: Int { pdf?.pageCount ?? 0 }
    }

    struct State {
        var parts: [Part]
        var isClosed = false
        var password: String?
        var listeners: [Int: AsyncStream<UnderlyingFileChange>.Continuation] = [:]
        var nextListener = 0
        var versionStore: FileVersionStore?
    }

    let state: Mutex<State>
    /// What parses the providers' PDFs.
    public let engine: any PDFEngine
    let notificationQueue = DispatchQueue(label: "quire.document.notifications")

    /// Opens the file at `url` with `engine`, through a ``CoordinatedFileDataProvider``, or a plain
    /// ``FileDataProvider`` when `fileCoordinationEnabled` is false (then the document hears of no changes).
    /// `Documents` adds `init(url:fileCoordinationEnabled:)`, which uses poppler in this process.
    public convenience init(url: URL, fileCoordinationEnabled: Bool = true, engine: any PDFEngine) {
        let provider: any DataProviding =
            fileCoordinationEnabled ? CoordinatedFileDataProvider(fileURL: url) : FileDataProvider(fileURL: url)
        self.init(dataProviders: [provider], engine: engine)
    }

    /// Opens a document whose pages are those of `dataProviders`, in order, parsed by `engine`. Coordinated
    /// providers get the document as their ``CoordinatedFileDataProviding/coordinationDelegate``. Providers that
    /// fail to open are kept, with 0 pages and their error in ``errors``. `Documents` adds
    /// `init(dataProviders:)`, which uses poppler in this process.
    public init(dataProviders: [any DataProviding], engine: any PDFEngine) {
        self.engine = engine
        state = Mutex(State(parts: dataProviders.map { Part(provider: $0) }, versionStore: FileVersionStore.current))
        for index in dataProviders.indices { load(partAt: index) }
        for case let provider as any CoordinatedFileDataProviding in dataProviders {
            let coordinated = provider
            coordinated.coordinationDelegate = self
        }
    }

    // MARK: FileCoordinationDelegate

    /// The file of `dataProvider` changed (its content, as the provider checked). A clean part reloads; a
    /// part with unsaved changes gets a `.modification` conflict. Then the change is posted.
    open func presentedItemDidChange(for dataProvider: any CoordinatedFileDataProviding) {
        guard let index = partIndex(of: dataProvider), !isClosed else { return }
        let isDirty = state.withLock { $0.parts[index].isDirty }
        if isDirty {
            state.withLock { state in
                if state.parts[index].conflict == nil { state.parts[index].conflict = .modification }
            }
        } else {
            load(partAt: index, automatic: true)
        }
        post(UnderlyingFileChange(fileURL: dataProvider.fileURL, dataProvider: dataProvider, isDeletion: false))
    }

    /// The file of `dataProvider` is being deleted: the part gets a `.deletion` conflict (its bytes stay in
    /// memory), the deleter is let go at once, and the deletion is posted.
    open func accommodatePresentedItemDeletion(
        for dataProvider: any CoordinatedFileDataProviding,
        completionHandler: @escaping @Sendable ((any Error)?) -> Void
    ) {
        if let index = partIndex(of: dataProvider), !isClosed {
            state.withLock { $0.parts[index].conflict = .deletion }
            completionHandler(nil)
            post(UnderlyingFileChange(fileURL: dataProvider.fileURL, dataProvider: dataProvider, isDeletion: true))
        } else {
            completionHandler(nil)
        }
    }

    // MARK: versions

    /// Where a conflict's losing side is kept as a conflict version of the file (see
    /// ``resolveFileConflict(for:with:)``): `FileVersionStore.current` when the document was made; nil keeps
    /// nothing.
    public var versionStore: FileVersionStore? {
        get { state.withLock { $0.versionStore } }
        set { state.withLock { $0.versionStore = newValue } }
    }

    // MARK: providers

    /// The providers, in page order.
    public var dataProviders: [any DataProviding] { state.withLock { $0.parts.map(\.provider) } }

    /// The presenters of the coordinated providers (empty without coordination). Not registered by the
    /// document: pass them to ``FilePresenterCoordinator/observe(_:)``.
    public var filePresenters: [any FilePresenter] {
        dataProviders.compactMap { ($0 as? any CoordinatedFileDataProviding)?.filePresenter }
    }

    /// The errors of the providers that could not be opened, in provider order.
    public var errors: [DocumentError] { state.withLock { $0.parts.compactMap(\.error) } }

    /// The error of `dataProvider` if it could not be opened.
    public func error(for dataProvider: any DataProviding) -> DocumentError? {
        state.withLock { state in state.parts.first { $0.provider === dataProvider }?.error }
    }

    /// Whether any provider's PDF is encrypted (opened with a password, or owner-password only).
    public var isEncrypted: Bool {
        state.withLock { state in
            state.parts.contains { $0.pdf?.isEncrypted ?? false || ($0.error.map(Self.needsPassword) ?? false) }
        }
    }

    /// Tries `password` on the providers that need one; returns true if every provider then opens.
    @discardableResult
    public func unlock(withPassword password: String) -> Bool {
        let locked = state.withLock { state -> [Int] in
            state.password = password
            return state.parts.indices.filter { state.parts[$0].error.map(Self.needsPassword) ?? false }
        }
        for index in locked { load(partAt: index) }
        return state.withLock { state in state.parts.allSatisfy { $0.error == nil } }
    }

    // MARK: pages

    /// The number of pages of all providers (0 for those that failed to open).
    public var pageCount: Int { state.withLock { $0.parts.reduce(0) { $0 + $1.pageCount } } }

    /// The index of the first page of `dataProvider` in the document, or nil if it is not one of its providers.
    public func pageOffset(for dataProvider: any DataProviding) -> Int? {
        state.withLock { state in
            var offset = 0
            for part in state.parts {
                if part.provider === dataProvider { return offset }
                offset += part.pageCount
            }
            return nil
        }
    }

    /// The provider of the page at `pageIndex`, or nil if there is no such page.
    public func dataProvider(forPageAt pageIndex: Int) -> (any DataProviding)? {
        state.withLock { Self.locate(pageIndex, in: $0.parts)?.part.provider }
    }

    /// The index of the page within its provider's PDF, or -1 if there is no such page.
    public func relativePageIndex(forPageAt pageIndex: Int) -> Int {
        state.withLock { Self.locate(pageIndex, in: $0.parts)?.relative ?? -1 }
    }

    /// The page's size in points, label, provider and provider-relative index.
    /// - Throws: ``DocumentError/pageOutOfRange(_:pageCount:)``, ``DocumentError/closed``, or a poppler failure.
    public func pageInfo(at pageIndex: Int) throws -> PageInfo {
        let (pdf, relative, provider) = try page(pageIndex)
        let info = try Self.source(provider) { try pdf.pageInfo(at: relative) }
        return PageInfo(
            index: pageIndex, size: CGSize(width: info.size.width, height: info.size.height), label: info.label,
            dataProvider: provider, relativeIndex: relative)
    }

    /// The opened PDF that holds page `pageIndex` (with its unsaved edits), and the page's index within it: for
    /// callers that talk to the engine's document directly (the service sends its worker-backed documents' work
    /// to its worker processes without blocking a thread).
    /// - Throws: ``DocumentError/pageOutOfRange(_:pageCount:)``, ``DocumentError/closed``.
    public func engineDocument(forPageAt pageIndex: Int) throws -> (document: any PDFEngineDocument, relativeIndex: Int) {
        let (pdf, relative, _) = try page(pageIndex)
        return (pdf, relative)
    }

    /// The page's text, in reading order.
    /// - Throws: as ``pageInfo(at:)``.
    public func text(ofPageAt pageIndex: Int) throws -> String {
        let (pdf, relative, provider) = try page(pageIndex)
        return try Self.source(provider) { try pdf.text(ofPageAt: relative) }
    }

    /// Where `text` occurs on the page: rectangles in points, PDF page space (origin bottom-left).
    /// - Throws: as ``pageInfo(at:)``; an empty `text` is a `PDFError.invalidArgument`.
    public func find(_ text: String, onPageAt pageIndex: Int, caseSensitive: Bool = false) throws -> [CGRect] {
        let (pdf, relative, provider) = try page(pageIndex)
        return try Self.source(provider) {
            try pdf.find(text, onPageAt: relative, caseSensitive: caseSensitive).map {
                CGRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height)
            }
        }
    }

    /// The page rendered as a PNG image at `dpi` dots per inch (at most `PDFLimits.maximumDPI`).
    /// - Throws: as ``pageInfo(at:)``; a bad resolution or a too large image is a ``DocumentError/pdf(source:_:)``.
    public func renderPage(at pageIndex: Int, dpi: Double) throws -> Data {
        let (pdf, relative, provider) = try page(pageIndex)
        return try Self.source(provider) { try pdf.renderPNG(pageAt: relative, dpi: dpi) }
    }

    /// The metadata of the first provider's PDF (empty when it could not be opened).
    public var metadata: DocumentMetadata {
        guard let pdf = state.withLock({ $0.parts.first?.pdf }) else { return DocumentMetadata() }
        return DocumentMetadata(pdf.metadata)
    }

    // MARK: shared helpers

    /// Opens a provider's PDF: from the bytes it put in place itself when it has them (a coordinated provider
    /// just after a replace), with their fingerprint for an engine that takes one, so that nothing is read or
    /// hashed again; else from a read.
    private static func open(
        _ provider: any DataProviding, with engine: any PDFEngine, password: String?
    ) throws -> any PDFEngineDocument {
        guard let coordinated = provider as? CoordinatedFileDataProvider else {
            return try engine.openDocument(try provider.data(), password: password)
        }
        let (bytes, fingerprint) = try coordinated.contentsForOpening()
        if let fingerprint, let engine = engine as? any FingerprintedPDFEngine {
            return try engine.openDocument(bytes, fingerprint: fingerprint, password: password)
        }
        return try engine.openDocument(bytes, password: password)
    }

    /// Reads a provider and opens its PDF into the part at `index`, dropping its edits and its conflict. For an
    /// automatic reload (`automatic` true): a failure keeps the PDF the part had (a file caught half-written by a
    /// program that does not coordinate is read again at its next change), and a part edited while the file was
    /// read is not replaced but gets a `.modification` conflict. Returns the error, if any.
    @discardableResult
    func load(partAt index: Int, automatic: Bool = false) -> DocumentError? {
        let edits = state.withLock { $0.parts[index].edits }
        let (provider, password) = state.withLock { ($0.parts[index].provider, $0.password) }
        let opened: Result<any PDFEngineDocument, DocumentError>
        do {
            opened = .success(try Self.open(provider, with: engine, password: password))
        } catch {
            opened = .failure(DocumentError.from(error, source: Self.sourceName(provider)))
        }
        return state.withLock { state -> DocumentError? in
            guard index < state.parts.count else { return nil }
            if automatic && state.parts[index].edits != edits {
                state.parts[index].conflict = state.parts[index].conflict ?? .modification
                return nil
            }
            switch opened {
            case .success(let pdf):
                state.parts[index] = Part(provider: provider, pdf: pdf)
                return nil
            case .failure(let error):
                if !(automatic && state.parts[index].pdf != nil) {
                    state.parts[index] = Part(provider: provider, conflict: state.parts[index].conflict)
                }
                // A deleted file whose path holds something again that cannot be read (a symbolic link out of
                // the root, a FIFO, a file that is not a PDF): the file is no longer deleted but damaged.
                if state.parts[index].conflict == .deletion, Self.somethingIsThere(error) {
                    state.parts[index].conflict = nil
                }
                state.parts[index].error = error
                return error
            }
        }
    }

    /// The PDF, provider-relative index and provider of a page.
    func page(_ pageIndex: Int) throws(DocumentError) -> (any PDFEngineDocument, Int, any DataProviding) {
        try state.withLock { state throws(DocumentError) in
            guard !state.isClosed else { throw .closed }
            guard let (part, relative) = Self.locate(pageIndex, in: state.parts), let pdf = part.pdf else {
                throw .pageOutOfRange(pageIndex, pageCount: state.parts.reduce(0) { $0 + $1.pageCount })
            }
            return (pdf, relative, part.provider)
        }
    }

    static func locate(_ pageIndex: Int, in parts: [Part]) -> (part: Part, relative: Int)? {
        guard pageIndex >= 0 else { return nil }
        var offset = 0
        for part in parts {
            if pageIndex < offset + part.pageCount { return (part, pageIndex - offset) }
            offset += part.pageCount
        }
        return nil
    }

    /// The index of `provider` among the parts.
    func partIndex(of provider: any DataProviding) -> Int? {
        state.withLock { state in state.parts.firstIndex { $0.provider === provider } }
    }

    /// Runs an engine call, naming the provider in its error.
    static func source<T>(_ provider: any DataProviding, _ body: () throws -> T) throws(DocumentError) -> T {
        do {
            return try body()
        } catch {
            throw DocumentError.from(error, source: sourceName(provider))
        }
    }

    /// The file path of a file provider, else its uid.
    static func sourceName(_ provider: any DataProviding) -> String {
        (provider as? any FileDataProviding)?.fileURL.path ?? provider.uid
    }

    /// Whether a failure to load a provider says that something is at its path (bytes that are not a PDF, or an
    /// entry its provider refuses to read), rather than nothing (a missing file) or nothing known (coordination or
    /// a PDF worker failed).
    static func somethingIsThere(_ error: DocumentError) -> Bool {
        switch error {
        case .pdf: return true
        case .unreadable(_, let underlying as DataProviderError): return !underlying.isFileMissing
        default: return false
        }
    }

    private static func needsPassword(_ error: DocumentError) -> Bool {
        if case .pdf(_, .encrypted) = error { return true }
        return false
    }
}
