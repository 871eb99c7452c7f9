import DocumentModel
import FileCoordination
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// The store's documents: the catalog, the open `Document`s (at most the configured number, least recently used
/// closed first, never one with unsaved edits or in conflict), the event log and its live feed.
///
/// Every operation on one document runs in that document's ``OperationLane``; blocking work (poppler, file I/O,
/// coordinated accesses) runs on the library's thread pool, never on the cooperative pool or an event loop.
/// Open documents are presented through `FilePresenterCoordinator`: another program's write, move or deletion of
/// one of their files becomes an event (`changed`, `moved`, `deleted`, `conflict`) within the debounce of
/// uncoordinated changes. The documents that are not open are watched through their directories
/// (``DormantDocuments``: one presenter per directory, the catalog's file index to find the document of a path), so
/// a dormant document costs no memory; a change opens it, which records what changed.
public final class DocumentLibrary: Sendable {
    struct State {
        /// The open documents, least recently used first (``OpenDocumentCache``).
        var open = OpenDocumentCache<OpenDocument>()
        /// The lanes of the documents that have an operation running or waiting, with how many there are: a lane
        /// leaves the map when its last operation ends (in the same critical section as the count reaching zero),
        /// so a newcomer either joins the lane that is still in use or makes a fresh one no one else holds.
        var lanes: [DocumentID: (lane: OperationLane, users: Int)] = [:]
        /// The documents whose first files are being put in place and opened (``create``), until they are open.
        var entering: Set<DocumentID> = []
        var isShutDown = false
    }

    /// The catalog and event log the library records documents and events in.
    package let catalog: any CatalogDatabase
    /// The configuration the library was made with.
    package let configuration: StoreConfiguration
    let metrics: StoreMetrics
    let logger: Logger
    /// The live feed of the events this node learns of (its own commits and, in a cluster, every node's).
    package let events: EventBroadcaster
    /// How the events of the log reach ``events`` (this node's commits only, or every node's).
    let fanOut: any EventFanOut
    /// What serializes operations on one document beyond its lane: nothing for one node, an advisory lock of the
    /// shared PostgreSQL in a cluster.
    let locks: any DocumentLocks
    /// This node in the store's node registry (itself alone, or a cluster's nodes).
    public var membership: NodeMembership { ownership.membership }
    /// Which node owns each document, as this node learns it.
    let ownership: DocumentOwnership
    let pool: NIOThreadPool
    /// The worker processes that render pages and extract text (the service's own process parses documents
    /// only to open them and to keep their edits).
    let workers: PDFWorkerPool
    /// What the workers found in the PDFs they opened lately.
    let summaries = PDFSummaryCache()
    /// Where uploads are kept: `<store>/files`.
    let uploadDirectory: URL
    /// The upload directory and the configured roots, each opened once: every file of a document is opened
    /// beneath one of them (``confinement(for:)``), never through a symbolic link, never outside.
    let uploadConfinement: FileConfinement
    let rootConfinements: [FileConfinement]
    /// Where the sides that conflict resolutions drop are kept, as conflict versions of the files:
    /// `<store>/versions` (see ``versions(_:)``), and the confinement its contents are read through.
    let versionStore: FileVersionStore
    let versionConfinement: FileConfinement
    /// When the library was made: temporary files older than this are left from an earlier run.
    let createdAt = Date()
    /// Where request bodies enter the store: their directory, the budget of upload bytes in flight, the limit.
    package let uploads: UploadIntake
    /// Where request bodies are streamed before they enter the store (``UploadIntake/directory``).
    public var incomingDirectory: URL { uploads.directory }
    /// The sealer of listing cursors, with the store's key.
    public let listingCursors: ListingCursors
    let state = Mutex(State())
    /// Registrations run one at a time (a file may belong to one document only).
    let registrations = OperationLane()
    /// The watch over the directories of the documents that are not open (set once, in `init`).
    let dormantBox = Mutex<DormantDocuments?>(nil)
    /// The store's catch-up with its files (``catchUp()``): whether one runs, and whether another is wanted after it.
    let catchUpState = Mutex<(running: Bool, again: Bool)>((false, false))
    /// The documents waiting for the search index (``runIndexing()``).
    let searchIndexing: SearchIndexing
    /// How many file events of watched directories were looked up in the catalog (``dormantPathChanged(_:)``).
    private let dormantLookupCount = Atomic<Int>(0)
    /// How many file events of watched directories were looked up in the catalog, for tests that count work.
    package var dormantLookups: Int { dormantLookupCount.load(ordering: .relaxed) }

    /// Makes the library over an open catalog; starts its thread pool (one thread per core, at least two).
    /// - Parameters:
    ///   - keepAliveInterval: how often an idle event stream gets a keep-alive comment.
    ///   - eventBufferBound: how many items an event stream may fall behind before it is ended (its client
    ///     resumes from the log with `Last-Event-ID`).
    ///   - cluster: nil for one node; for a cluster node, the PostgreSQL connections through which every node's
    ///     events reach this node's live streams (a follower of the shared log, run by the library's service)
    ///     and through which operations on one document are serialized across the nodes.
    ///   - version: The Quire version the node reports in the node registry.
    /// - Throws: `CocoaError` when the upload directory cannot be created or the listing cursors' key can neither
    ///   be read nor made, a `DataProviderError` when it or a root cannot be opened; ``StoreError/internalFailure(_:)`` for a catalog other than ``Catalog`` without a
    ///   cluster link.
    public init(
        catalog: any CatalogDatabase, configuration: StoreConfiguration, metrics: StoreMetrics, logger: Logger,
        keepAliveInterval: Duration = .seconds(15), eventBufferBound: Int = 10_000, cluster: ClusterLink? = nil,
        version: String = "unknown"
    ) throws {
        self.catalog = catalog
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        events = EventBroadcaster(
            keepAliveInterval: keepAliveInterval, bufferBound: eventBufferBound, cutOffs: metrics.eventStreamsCutOff,
            logger: logger)
        if let cluster {
            let membership = NodeMembership(registry: cluster.registry, version: version, logger: logger)
            fanOut = LogFollowingFanOut(
                broadcaster: events, log: catalog, client: cluster.client, pollInterval: cluster.pollInterval,
                node: membership.id, metrics: metrics, logger: logger)
            locks = AdvisoryDocumentLocks(client: cluster.lockClient, timeout: cluster.lockTimeout)
            ownership = DocumentOwnership(membership: membership, isCluster: true)
        } else {
            // One node's SQLite catalog tells of each event as it commits, in id order: the feed publishes
            // there, so that concurrent commits never reach a subscriber out of order.
            guard let local = catalog as? Catalog else {
                throw StoreError.internalFailure("a store without a cluster link keeps its catalog in SQLite")
            }
            local.observeCommittedEvents { [events] event in events.publish(event) }
            fanOut = CommitOrderFanOut()
            locks = LocalDocumentLocks()
            ownership = DocumentOwnership(
                membership: NodeMembership(registry: LocalNodeRegistry(), version: version, logger: logger),
                isCluster: false)
        }
        // One thread per core for the store's own blocking work, and one per PDF worker: opening a document waits
        // for a worker's probe on one of these threads, and slow probes must not leave none for other documents.
        pool = NIOThreadPool(
            numberOfThreads: max(2, ProcessInfo.processInfo.activeProcessorCount) + configuration.pdfWorkers)
        pool.start()
        let backgroundWorkers = max(1, configuration.pdfWorkers - 1)
        workers = PDFWorkerPool(
            settings: .init(
                executable: configuration.pdfWorkerExecutable ?? PDFWorkerPool.defaultExecutable(),
                workers: configuration.pdfWorkers, backgroundWorkers: backgroundWorkers,
                backgroundTextThreads: max(1, ProcessInfo.processInfo.activeProcessorCount / backgroundWorkers),
                deadline: configuration.pdfDeadline, memoryLimitMiB: configuration.pdfMemoryMiB,
                replyPoll: configuration.polling.workerReply, idlePoll: configuration.polling.workerIdle),
            metrics: metrics, logger: logger)
        searchIndexing = SearchIndexing(concurrency: max(1, configuration.pdfWorkers - 1))
        uploadDirectory = configuration.storeDirectory.appendingPathComponent("files", isDirectory: true)
        try FileManager.default.createDirectory(
            at: uploadDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        uploadConfinement = try FileConfinement(root: uploadDirectory)
        rootConfinements = try configuration.roots.map { try FileConfinement(root: $0) }
        let versions = configuration.storeDirectory.appendingPathComponent("versions", isDirectory: true)
        try FileManager.default.createDirectory(
            at: versions, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        versionStore = FileVersionStore(directory: versions)
        versionConfinement = try FileConfinement(root: versions)
        uploads = try UploadIntake(
            storeDirectory: configuration.storeDirectory, sharedStore: configuration.database != nil,
            budgetBytes: configuration.uploadBudgetBytes, limit: configuration.maxUploadBytes)
        listingCursors = try ListingCursors.ofStore(in: configuration.storeDirectory)
        dormantBox.withLock {
            $0 = DormantDocuments(
                onChange: { [weak self] path in self?.dormantPathChanged(path) },
                onMove: { [weak self] from, to in self?.dormantPathMoved(from: from, to: to) },
                onOverflow: { [weak self] directory in self?.changesMayBeLost(in: directory) })
        }
        (self.fanOut as? LogFollowingFanOut)?.otherNodeRecorded.withLock {
            $0 = Callback { [weak self] event in self?.otherNodeRecorded(event) }
        }
        (self.fanOut as? LogFollowingFanOut)?.listenerStarted.withLock {
            $0 = Callback { [weak self] _ in
                guard let self else { return }
                // Another node's edit reaches this node's cache only by notification: those sent while the
                // listener was down are lost, so every cached answer goes.
                for open in self.state.withLock({ Array($0.open.values) }) { open.invalidateInfo() }
            }
        }
        (self.fanOut as? LogFollowingFanOut)?.documentTouched.withLock {
            $0 = Callback { [weak self] id in
                guard let self else { return }
                self.invalidateInfo(id)
                // A takeover's record says so without an event.
                Task { await self.dropCopyIfOwnedElsewhere(id) }
            }
        }
    }

    /// Another node of the cluster recorded `event`. Every node watches every document's files, so that no
    /// document depends on one node to hear of its changes (a node that dies leaves its documents watched by the
    /// others, which claim them when they see a change); only the owner records what it sees
    /// (``recordsObservedChanges(of:)``):
    /// - a document this node does not hold open, new or moved, is watched while dormant at its files now; one
    ///   that is gone from the catalog is no longer watched;
    /// - a document this node holds open and clean, whose record now says another version (or that it is gone),
    ///   is forgotten and watched while dormant again; the next request opens it from the catalog and its files.
    ///   One with unsaved edits or in conflict stays while this node owns it (its own presenters tell it of its
    ///   files), and is dropped once another node does (``dropCopyIfOwnedElsewhere(_:askingTheRegistry:)``).
    /// Runs in the document's lane, after what runs there.
    func otherNodeRecorded(_ event: StoreEvent) {
        let id = event.documentID
        invalidateInfo(id)  // at once: the answers cached for the version another node replaced
        Task { await catchUpWithRecord(id) }
    }

    /// Brings what this node holds of document `id` in line with its catalog record (another node changed it),
    /// in its lane: see ``otherNodeRecorded(_:)``.
    func catchUpWithRecord(_ id: DocumentID) async {
        _ = try? await lane(id).run {
            let record = try await self.catalog.document(id)
            guard let open = self.state.withLock({ $0.open[id] }) else {
                if let record, record.state != .deleted { self.watchDormant(id, paths: record.files) }
                return
            }
            guard !open.document.hasUnsavedChanges, open.document.conflict == nil else {
                // Its edits or its conflict are its owner's: this node keeps them only while it owns it.
                Task { await self.dropCopyIfOwnedElsewhere(id) }
                return
            }
            guard record == nil || record?.etag != OpenDocument.tag(of: open.files) else { return }
            self.forget(id)
            if let record, record.state != .deleted { self.watchDormant(id, paths: record.files) }
        }
    }

    /// Streams a request body into a temporary file of ``incomingDirectory`` (``UploadIntake``), within `limit`
    /// bytes and the service's upload budget, its file I/O on the library's thread pool.
    /// - Throws: as ``UploadIntake/receive(_:declaredLength:limit:blocking:)``.
    package func receiveUpload<Body: AsyncSequence & Sendable>(
        _ body: Body, declaredLength: Int?, limit: Int
    ) async throws -> IncomingUpload where Body.Element == ByteBuffer {
        try await uploads.receive(body, declaredLength: declaredLength, limit: limit) { work in
            try await self.blocking(work)
        }
    }

    // MARK: lifecycle

    /// Starts watching the directories that hold documents' files (the store's `files/` and those the catalog's
    /// directory index names: a handful of presenters, whatever the number of documents). Fast and independent of
    /// the store's size: what changed while the service was down is found by ``catchUp()``, in the background.
    public func start() async {
        var directories = [uploadDirectory.path]
        do {
            directories += try await catalog.documentDirectories()
        } catch {
            logger.warning(
                "the directories of registered documents cannot be read from the catalog: only the upload directory is watched until the next start",
                metadata: ["error": "\(error)"])
        }
        dormant?.watch(directories: directories)
    }

    /// Closes every document (presenters unobserved), ends every event stream and stops the thread pool.
    public func shutdown() async {
        let documents = state.withLock { state -> [OpenDocument] in
            state.isShutDown = true
            return state.open.removeAll()
        }
        for document in documents { document.close() }
        dormant?.stop()
        metrics.openDocuments.record(0)
        events.finishAll()
        uploads.close()
        workers.shutdown()
        try? await pool.shutdownGracefully()
    }

    // MARK: shared steps

    /// The lane of a document's operations.
    func lane(_ id: DocumentID) -> DocumentLane {
        DocumentLane(library: self, id: id)
    }

    /// The lane of document `id`, made if there is none, counted as used until ``leaveLane(_:)``.
    func enterLane(_ id: DocumentID) -> OperationLane {
        state.withLock { state in
            if let entry = state.lanes[id] {
                state.lanes[id]?.users += 1
                return entry.lane
            }
            let lane = OperationLane()
            state.lanes[id] = (lane, 1)
            return lane
        }
    }

    /// Ends one use of document `id`'s lane; the last one removes the lane from the map.
    func leaveLane(_ id: DocumentID) {
        state.withLock { state in
            guard let entry = state.lanes[id] else { return }
            if entry.users <= 1 {
                state.lanes.removeValue(forKey: id)
            } else {
                state.lanes[id]?.users -= 1
            }
        }
    }

    /// How many documents are open.
    var openDocumentCount: Int { state.withLock { $0.open.count } }

    /// The nodes of the store (this one alone, or a cluster's), with whether each is alive.
    /// - Throws: ``CatalogError/databaseFailed(path:operation:reason:)`` when the registry cannot be read.
    public func nodes() async throws -> [(node: NodeRecord, isLive: Bool)] {
        try await membership.registry.nodes(liveness: NodeMembership.liveness)
    }

    /// How many documents have a lane (an operation running or waiting): 0 when the library is idle.
    var laneCount: Int { state.withLock { $0.lanes.count } }

    /// The catalog record.
    /// - Throws: ``StoreError/documentNotFound(_:)`` when there is none.
    package func record(_ id: DocumentID) async throws -> DocumentRecord {
        guard let record = try await catalog.document(id) else { throw StoreError.documentNotFound(id) }
        return record
    }

    /// Runs blocking work on the library's thread pool.
    func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(body)
    }

    /// The open document `id` (opening it if needed), checking `password` for an encrypted one. Call inside the
    /// document's lane.
    /// - Throws: ``StoreError/documentNotFound(_:)`` for an unknown id; ``StoreError/passwordRequired(what:wrongPassword:)``
    ///   for a missing or wrong password.
    func openDocument(_ id: DocumentID, password: String?) async throws -> OpenDocument {
        if let open = touch(id) {
            try await admit(password, to: open)
            return open
        }
        let record = try await record(id)
        let (opened, files) = try await load(record, password: password, requireAll: false)
        try adopt(opened)
        await reconcile(opened, with: record, files: files)
        return opened
    }

    /// Opens a record's files (with `password` for encrypted ones) and measures them, in one trip to the pool;
    /// through `given` providers when there are some (those that just put a new document's file in place, whose
    /// bytes are not read or hashed again), after `placing` (which puts the files in place) on the same thread.
    /// With `requireAll` (a new document) any file that does not open is an error; otherwise only a missing or
    /// wrong password is (a recorded document keeps a failing file and reports it through its state).
    /// - Throws: ``StoreError/passwordRequired(what:wrongPassword:)`` for a missing or wrong password; with
    ///   `requireAll`, `damagedPDF` or `unusableFile` for a file that does not open.
    func load(
        _ record: DocumentRecord, password: String?, requireAll: Bool,
        providers given: [CoordinatedFileDataProvider]? = nil, placing: (@Sendable () throws -> Void)? = nil
    ) async throws -> (OpenDocument, [(path: String, size: Int, tag: EntityTag?)]) {
        try await blocking {
            try placing?()
            let providers = given ?? self.providers(for: record.files)
            let document = Document(dataProviders: providers, engine: self.engine(for: record.id))
            document.versionStore = self.versionStore
            if let password, document.errors.contains(where: Self.needsPassword) {
                document.unlock(withPassword: password)
            }
            // No worker was free to open a file: that says nothing of the file. The document is not kept (the
            // next request opens it again) and the client is told to retry.
            if let transient = document.errors.lazy.compactMap(Self.transientWorkFailure).first {
                if let first = providers.first { try? document.resolveFileConflict(for: first, with: .close) }
                throw StoreError.pdfWorkFailed(transient, work: "opening document \(record.id.rawValue)")
            }
            if let error = document.errors.first(where: { requireAll || Self.needsPassword($0) }) {
                throw Self.needsPassword(error)
                    ? StoreError.passwordRequired(
                        what: "document \(record.id.rawValue)", wrongPassword: password != nil)
                    : StoreError.opening(error, "the document", passwordGiven: password != nil)
            }
            let opened = OpenDocument(
                id: record.id, document: document, providers: providers,
                password: document.isEncrypted ? password : nil)
            return (opened, opened.measureFiles())
        }
    }

    /// The confinement a document file is opened through: the deepest root that holds it, or the upload
    /// directory. A path beneath neither (a root removed from the configuration since) gets the upload
    /// directory's, which refuses it: such a file is never opened.
    func confinement(for path: String) -> FileConfinement {
        if uploadConfinement.contains(path) { return uploadConfinement }
        let holding = rootConfinements.filter { $0.contains(path) }
        return holding.max { $0.root.path.count < $1.root.path.count } ?? uploadConfinement
    }

    /// The PDF engine of document `id`: its PDFs are parsed in the worker processes, its requests queued as
    /// one document's.
    func engine(for id: DocumentID) -> WorkerPDFEngine { engine(key: id.rawValue) }

    /// A PDF engine whose requests are queued under `key`.
    func engine(key: String) -> WorkerPDFEngine {
        WorkerPDFEngine(pool: workers, summaries: summaries, key: key)
    }

    /// The worker failure behind `error` when it says nothing of the file (no worker was free or could start).
    static func transientWorkFailure(_ error: DocumentError) -> PDFWorkError? {
        guard case .unreadable(_, let underlying) = error, let work = underlying as? PDFWorkError, work.isTransient
        else { return nil }
        return work
    }

    /// Coordinated, confined providers for `paths` whose coordination waits feed the metrics.
    func providers(for paths: [String]) -> [CoordinatedFileDataProvider] {
        let metrics = metrics
        return paths.map { path in
            let provider = CoordinatedFileDataProvider(
                fileURL: URL(fileURLWithPath: path), confinement: confinement(for: path))
            provider.coordinationWaitObserver = { metrics.recordCoordinationWait($0) }
            return provider
        }
    }

    /// Makes an opened document current: watched, in the cache, and the cache kept within its bound.
    func adopt(_ opened: OpenDocument) throws {
        let evicted = try state.withLock { state throws -> [OpenDocument] in
            guard !state.isShutDown else {
                throw StoreError.unavailable("the service is stopping", retryAfterSeconds: nil)
            }
            state.open.insert(opened, for: opened.id)
            // Never one with unsaved edits or in conflict: those stay open whatever the bound.
            let evicted = state.open.evict(downTo: configuration.maxOpenDocuments, keeping: opened.id) { open in
                !open.document.hasUnsavedChanges && open.document.conflict == nil
            }
            metrics.openDocuments.record(state.open.count)
            return evicted
        }
        for document in evicted {
            document.close()
            watchDormant(document.id, paths: document.providers.map(\.fileURL.path))
        }
        let id = opened.id
        opened.watch(
            onChange: { [weak self] change in
                guard let self else { return }
                _ = try? await self.lane(id).run { await self.fileChanged(opened, change) }
            },
            onMove: { [weak self] from, to in
                guard let self else { return }
                _ = try? await self.lane(id).run { await self.fileMoved(opened, from: from, to: to) }
            })
    }

    /// The watch over the documents that are not open.
    var dormant: DormantDocuments? { dormantBox.withLock { $0 } }

    /// The directories watched for the documents that are not open (one presenter each), sorted.
    package var watchedDirectories: [String] { dormant?.directories ?? [] }

    /// Makes sure the files of document `id`, which is not open (evicted, new, moved, or another node's), are
    /// watched: their directories are (``DormantDocuments``), which costs nothing per document.
    func watchDormant(_ id: DocumentID, paths: [String]) {
        dormant?.watch(directoriesOf: paths)
    }

    /// A file in a watched directory was written, created, replaced or deleted: the documents that hold it and are
    /// not open are opened, which records the change (an open document's own presenters tell it).
    /// A file of `<store>/files` named for a document that is open or entering the store (an upload's own
    /// rename, its first file appearing) is not looked up in the catalog: the answer would be "open, nothing to
    /// do" (an open document's presenters hear of its files, and an entering one checks its files once
    /// registered), at the cost of a catalog read per upload.
    func dormantPathChanged(_ path: String) {
        if let id = uploadedDocument(at: path),
            state.withLock({ $0.open[id] != nil || $0.entering.contains(id) })
        {
            return
        }
        dormantLookupCount.add(1, ordering: .relaxed)
        Task {
            guard let holders = try? await catalog.documents(holdingAnyOf: [path]) else { return }
            for record in holders where record.state != .deleted && state.withLock({ $0.open[record.id] == nil }) {
                dormantFileChanged(record.id)
            }
        }
    }

    /// The document an upload's file at `path` (`<store>/files/<id>.pdf`) belongs to, by its name; nil for any
    /// other path.
    func uploadedDocument(at path: String) -> DocumentID? {
        let directory = uploadDirectory.path
        guard path.count > directory.count + 5, path.hasPrefix(directory), path.hasSuffix(".pdf") else { return nil }
        let name = path.dropFirst(directory.count)
        guard name.first == "/" else { return nil }
        return DocumentID(rawValue: String(name.dropFirst().dropLast(4)))
    }

    /// A file in a watched directory was renamed: the records of the documents that hold it and are not open
    /// follow it, with a `moved` event; a document that held the destination saw its file replaced (an atomic
    /// save: a temporary file renamed over it).
    func dormantPathMoved(from: String, to: String) {
        dormant?.watch(directoriesOf: [to])  // its new directory, if it is a new one
        dormantPathChanged(to)
        Task {
            guard let holders = try? await catalog.documents(holdingAnyOf: [from]) else { return }
            for record in holders where record.state != .deleted && state.withLock({ $0.open[record.id] == nil }) {
                dormantFileMoved(record.id, from: URL(fileURLWithPath: from), to: URL(fileURLWithPath: to))
            }
        }
    }

    /// A directory's changes may have been lost (its watch was lost and came back, or the kernel's queue
    /// overflowed): the store catches up with its files again.
    func changesMayBeLost(in directory: String) {
        logger.notice(
            "file changes may have been missed: catching up with every document's files",
            metadata: ["directory": "\(directory)"])
        Task { await catchUp() }
    }

    /// A file of a document that is not open was written or deleted: opening the document records the change.
    private func dormantFileChanged(_ id: DocumentID) {
        Task {
            guard await recordsObservedChanges(of: id) else { return }
            do {
                _ = try await lane(id).run { try await self.openDocument(id, password: nil) }
            } catch {
                logger.debug(
                    "a change to a closed document's file could not open it",
                    metadata: ["document": "\(id)", "error": "\(error)"])
            }
        }
    }

    /// A file of a document that is not open was renamed: the record follows it, with a `moved` event.
    private func dormantFileMoved(_ id: DocumentID, from: URL, to: URL) {
        Task {
            guard await recordsObservedChanges(of: id) else { return }
            _ = try? await lane(id).run {
                await self.recordMove(id, from: from, to: to) { files in
                    files.map { $0 == from.path ? to.path : $0 }
                }
            }
        }
    }

    /// Takes a document out of the cache (its directory's watch goes on).
    func forget(_ id: DocumentID) {
        let document = state.withLock { state -> OpenDocument? in
            let document = state.open.remove(id)
            metrics.openDocuments.record(state.open.count)
            return document
        }
        document?.close()
    }

    /// The open document `id`, marked most recently used; nil when it is not open.
    /// The version this node last answered for document `id` from memory (its cached info), without reading the
    /// catalog: nil when the document is not open here or its answer is not cached. It may be behind the catalog's
    /// (another node changed it since), never ahead: enough to refuse a write that names an older version before
    /// its body is read (``WritePrecondition/isSurelyStale(knownVersion:)``), not to accept one.
    package func knownVersion(of id: DocumentID) -> Int64? {
        state.withLock { $0.open[id] }?.cachedInfo?.0.version
    }

    private func touch(_ id: DocumentID) -> OpenDocument? {
        state.withLock { state in
            state.open.touch(id)
        }
    }

    /// The title `GET /documents` shows: none for an encrypted document, whose metadata only its password reveals.
    static func listedTitle(of document: Document) -> String? {
        document.isEncrypted ? nil : document.metadata.title
    }

    /// The state the store reports for an open document.
    static func state(of document: Document) -> DocumentState {
        if let conflict = document.conflict {
            return conflict.type == .deletion ? .deleted : .conflict(.modification)
        }
        if document.errors.contains(where: { !needsPassword($0) }) { return .damaged }
        return document.hasUnsavedChanges ? .dirty : .clean
    }

    /// `record` brought up to date with the open document (tag, sizes, pages, title, state, paths).
    ///
    /// With `keepingOwnersState` (a cluster node that only saw the files change, or wrote them without holding
    /// the edits), a record that says `dirty` or in conflict over a modification keeps that state while this
    /// node's document is clean: the edits, and the conflict, are the owner's (another node's), and only it says
    /// when they end.
    static func updated(
        _ record: DocumentRecord, from open: OpenDocument, files: [(path: String, size: Int, tag: EntityTag?)],
        keepingOwnersState: Bool = false
    ) -> DocumentRecord {
        let held = record.state
        var record = record
        record.files = files.map(\.path)
        record.etag = OpenDocument.tag(of: files)
        record.size = files.reduce(0) { $0 + $1.size }
        record.pageCount = open.document.pageCount
        record.title = listedTitle(of: open.document)
        record.state = state(of: open.document)
        if keepingOwnersState, record.state == .clean, held == .dirty || held == .conflict(.modification) {
            record.state = held
        }
        record.updatedAt = Date()
        return record
    }

    static func needsPassword(_ error: DocumentError) -> Bool {
        if case .pdf(_, .encrypted) = error { return true }
        return false
    }
}
