import Crypto
import DocumentModel
import FileCoordination
import Foundation
import Synchronization

/// A document of the store that is open: its `Document`, its coordinated providers (one per file), what it
/// knows of its files' tags, and the tasks that carry its files' changes to the store.
final class OpenDocument: @unchecked Sendable {
    let id: DocumentID
    let document: Document
    let providers: [CoordinatedFileDataProvider]
    /// Whether it needed a password to open.
    let needsPassword: Bool
    /// SHA-256 of each password known to open it (the one it was opened with, and any other a worker has since
    /// opened it with: the user and the owner password both open a PDF).
    private let passwordDigests: Mutex<Set<Data>>
    private let tags = Mutex<[ObjectIdentifier: (fingerprint: ContentFingerprint, size: Int, tag: EntityTag)]>([:])
    /// Notification observers are not `Sendable`: they sit behind a plain lock.
    private let observerLock = NSLock()
    nonisolated(unsafe) private var observers: [any NSObjectProtocol] = []
    private let watcher = Mutex<Task<Void, Never>?>(nil)
    /// What the document last answered, until it or its record changes (``invalidateInfo()``).
    /// The cached answers and their generation: every invalidation moves the generation, and answers built from
    /// what was read before it are not kept (a notification of another node's change can arrive while a request
    /// builds the info from the record it read just before).
    private let answers = Mutex<(answers: Answers?, generation: UInt64)>((nil, 0))

    /// The info and the content as callers render them (response bodies, say): built once, shared by every caller
    /// until the document or its record changes.
    struct Answers: Sendable {
        var info: DocumentInfo
        /// The info's validator (content and version).
        var tag: EntityTag
        /// The info as the last caller rendered it (``DocumentLibrary/info(_:password:renderedBy:)``).
        var infoRendering: (any Sendable)?
        /// The content's own tag (its bytes' SHA-256): what the content is answered with.
        var contentTag: EntityTag
        /// The content as the last caller made it into a body (``DocumentLibrary/content(_:password:as:)``).
        var content: (any Sendable)?
    }

    init(id: DocumentID, document: Document, providers: [CoordinatedFileDataProvider], password: String?) {
        self.id = id
        self.document = document
        self.providers = providers
        needsPassword = password != nil
        passwordDigests = Mutex(Set(password.map { [Self.digest($0)] } ?? []))
    }

    /// The answers built since the last change, if any.
    var cachedAnswers: Answers? { answers.withLock { $0.answers } }

    /// The generation of the cached answers: read it before reading what an answer is built from, and pass it to
    /// ``cacheInfo(_:tag:builtAt:)``.
    var answersGeneration: UInt64 { answers.withLock { $0.generation } }

    /// The info last answered, if nothing changed since.
    var cachedInfo: (DocumentInfo, EntityTag)? {
        answers.withLock { $0.answers.map { ($0.info, $0.tag) } }
    }

    /// Keeps the info built from what was read at `generation`; dropped when the answers were invalidated since
    /// (they would describe a version that is no longer the record's).
    func cacheInfo(_ info: DocumentInfo, tag: EntityTag, builtAt generation: UInt64) {
        answers.withLock { cache in
            guard cache.generation == generation else { return }
            cache.answers = Answers(info: info, tag: tag, contentTag: info.contentTag)
        }
    }

    /// The rendering of `answers`' info that is kept with them, or the one `render` makes now (kept while they
    /// are still the document's answers).
    func rendering<Rendering: Sendable>(
        of answers: Answers, renderedBy render: (DocumentInfo) throws -> Rendering
    ) rethrows -> Rendering {
        if let kept = answers.infoRendering as? Rendering { return kept }
        let rendered = try render(answers.info)
        self.answers.withLock { cache in
            guard cache.answers?.tag == answers.tag, cache.answers?.info == answers.info else { return }
            cache.answers?.infoRendering = rendered
        }
        return rendered
    }

    /// The first file that is no longer a readable PDF, and why (nil when every file opens, or only a password
    /// is missing).
    var damage: DocumentDamage? {
        for provider in providers {
            if let error = document.error(for: provider), !DocumentLibrary.needsPassword(error),
                DocumentLibrary.transientWorkFailure(error) == nil
            {
                return DocumentDamage(file: provider.fileURL.path, reason: error.description)
            }
        }
        return nil
    }

    /// Whether a file could not be (re)read only because no PDF worker was free: the document's state says
    /// nothing true of that file until it is opened again.
    var hasTransientFailure: Bool {
        providers.contains { provider in
            document.error(for: provider).flatMap(DocumentLibrary.transientWorkFailure) != nil
        }
    }

    /// The content, made into `Body` by `makeBody` (kept with the answers), and tag of the version the cached
    /// answers describe, without waiting for anything: nil when no answers are cached (a change dropped them), the
    /// document has no bytes, or it is damaged.
    func cachedContent<Body: Sendable>(as makeBody: (Data) -> Body) -> (Body, EntityTag)? {
        guard let answers = answers.withLock({ $0.answers }), answers.info.damage == nil else { return nil }
        if let content = answers.content as? Body { return (content, answers.contentTag) }
        guard let bytes = providers.first?.lastReadContents else { return nil }
        let body = makeBody(bytes)
        self.answers.withLock {
            if $0.answers?.tag == answers.tag, !($0.answers?.content is Body) { $0.answers?.content = body }
        }
        return (body, answers.contentTag)
    }

    /// Forgets the cached answers: the document or its record changed.
    func invalidateInfo() {
        answers.withLock { cache in
            cache.answers = nil
            cache.generation &+= 1
        }
    }

    /// Whether `password` is known to open the document (always true for one that needed none). A password not
    /// known yet may still open it: ``DocumentLibrary/admit(_:to:)`` asks a worker.
    func accepts(password: String?) -> Bool {
        guard needsPassword else { return true }
        guard let password else { return false }
        let digest = Self.digest(password)
        return passwordDigests.withLock { $0.contains(digest) }
    }

    /// Remembers that `password` opens the document.
    func admit(password: String) {
        let digest = Self.digest(password)
        passwordDigests.withLock { _ = $0.insert(digest) }
    }

    /// Whether every file is, by its metadata, the readable file whose bytes the document holds (see
    /// `CoordinatedFileDataProvider.isUnchangedSinceLastLook`): one `openat2` and one `fstat` per file, no read. Not
    /// blocking in practice (metadata of a local file system), so request paths call it inline. False as well for
    /// a file last found missing or unreadable: its document's answers are not the cached ones.
    var filesAreCurrent: Bool {
        providers.allSatisfy { provider in
            guard case .file = provider.lastLook else { return false }
            return provider.isUnchangedSinceLastLook
        }
    }

    /// Checks each file that is not current now (its delegate, the document, reloads it or learns it cannot), waits
    /// for the checks already under way of those last found missing or unreadable (the document may not have heard
    /// yet), and returns those providers. Blocking.
    func recheckFiles() -> [CoordinatedFileDataProvider] {
        var checked: [CoordinatedFileDataProvider] = []
        for provider in providers {
            if !provider.isUnchangedSinceLastLook {
                provider.checkForChangeNow()
            } else if case .file = provider.lastLook {
                continue
            } else {
                provider.waitForChecksInProgress()
            }
            checked.append(provider)
        }
        return checked
    }

    /// The files as last measured by ``measureFiles()``: path, size and tag (nil for a file that could not be
    /// read).
    var files: [(path: String, size: Int, tag: EntityTag?)] {
        let measured = tags.withLock { $0 }
        return providers.map { provider in
            let entry = measured[ObjectIdentifier(provider)]
            return (provider.fileURL.path, entry?.size ?? 0, entry?.tag)
        }
    }

    /// Measures the files again from the bytes the document last read or wrote, by the fingerprint their provider
    /// took of them (SHA-256 only of bytes not measured before), and returns them.
    @discardableResult
    func measureFiles() -> [(path: String, size: Int, tag: EntityTag?)] {
        for provider in providers {
            let key = ObjectIdentifier(provider)
            guard let (bytes, fingerprint) = provider.lastContents else {
                tags.withLock { $0[key] = nil }
                continue
            }
            if tags.withLock({ $0[key]?.fingerprint }) == fingerprint { continue }
            let tag = EntityTag(content: bytes)
            tags.withLock { $0[key] = (fingerprint, bytes.count, tag) }
        }
        return files
    }

    /// The document's tag: its one file's tag, or the combination of its files' tags (a missing file counts
    /// as the tag of no bytes).
    static func tag(of files: [(path: String, size: Int, tag: EntityTag?)]) -> EntityTag {
        let tags = files.map { $0.tag ?? EntityTag(content: Data()) }
        return tags.count == 1 ? tags[0] : EntityTag(combining: tags)
    }

    /// Starts carrying the document's changes and its files' moves to `onChange` and `onMove`.
    func watch(
        onChange: @escaping @Sendable (UnderlyingFileChange) async -> Void,
        onMove: @escaping @Sendable (_ from: URL, _ to: URL) async -> Void
    ) {
        let changes = document.underlyingFileChanges
        watcher.withLock { $0 = Task { for await change in changes { await onChange(change) } } }
        let tokens = providers.map { provider in
            NotificationCenter.default.addObserver(
                forName: .dataProviderFileURLDidChange, object: provider, queue: nil
            ) { notification in
                guard let from = notification.userInfo?["oldURL"] as? URL,
                    let to = notification.userInfo?["newURL"] as? URL
                else { return }
                Task { await onMove(from, to) }
            }
        }
        observerLock.withLock { observers = tokens }
        FilePresenterCoordinator.shared.observe(document.filePresenters)
        // A change between the document's read and this registration (a cp right after an upload) is seen too.
        for provider in providers { provider.verifyAfterRegistration() }
    }

    /// Stops watching: presenters unobserved, tasks and observers ended.
    func close() {
        FilePresenterCoordinator.shared.unobserve(document.filePresenters)
        watcher.withLock { $0?.cancel() }
        for token in observerLock.withLock({ observers }) { NotificationCenter.default.removeObserver(token) }
    }

    private static func digest(_ password: String) -> Data {
        Data(SHA256.hash(data: Data(password.utf8)))
    }
}
