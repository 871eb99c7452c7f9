import FileCoordination
import Foundation
import Synchronization

/// A file provider whose every read and write happens inside a coordinated access, and which presents its file
/// to other coordinators (in this process and, with the shared scope, in every process of the user).
///
/// - It is its own `FilePresenter` with ``observesUncoordinatedChanges`` true: changes made by programs that
///   do not coordinate (inotify) reach it too. Register it with ``FilePresenterCoordinator`` (a ``Document``
///   does not register its providers itself).
/// - It follows moves: `fileURL` changes and `Notification.Name.dataProviderFileURLDidChange`
///   is posted.
/// - It remembers a ``ContentFingerprint`` of the content it last read or wrote, and tells its
///   ``coordinationDelegate`` of a change only when the content differs: a `touch`, a `chmod` or a rewrite of
///   the same bytes is silent. The check runs on a private serial queue, from which the delegate is called: a
///   file that is, by identity and fingerprint, the one last seen is read without coordination and costs
///   nothing more; any other is read inside a coordinated read.
/// - It forwards a deletion to its delegate on its presenter queue; a coordinated deletion proceeds once the
///   delegate calls the completion handler.
/// - It keeps the bytes it last read or wrote (shared, not copied, with whoever got them from ``data()``), so
///   that ``resolveFileConflict(with:)`` with `.save` can restore a deleted file.
/// - It remembers the ``FileIdentity`` of what it last read or checked, so that whoever serves the bytes it holds
///   can ask, cheaply, whether the file is still the one they came from (``isUnchangedSinceLastLook``), and have
///   it checked at once when not (``checkForChangeNow()``).
/// - While observed (``FilePresenterCoordinator``), the inode it last read is watched too (`InodeWatch`): a hard
///   link made to the file from outside its directory, or a write through one, is a change like any other.
///
/// Every member, including all presenter members, is `open`.
open class CoordinatedFileDataProvider: FileDataProvider, CoordinatedFileDataProviding, FilePresenter,
    @unchecked Sendable
{
    private struct State {
        var fingerprint: ContentFingerprint?
        var fileCopy: Data?
        /// The fingerprint of `fileCopy`.
        var copyFingerprint: ContentFingerprint?
        /// `fileCopy` is what this provider itself put in place last, and nothing was read or found changed since.
        var writtenUnread = false
        var timeout: Duration?
        var waitObserver: (@Sendable (Duration) -> Void)?
        /// The delegate was told the file is gone (until the file is seen again).
        var deletionReported = false
        /// The delegate was told the file cannot be read (until it is read again).
        var unreadableReported = false
        /// What the last read or check found at the path (nil before the first).
        var identity: FileIdentity?
        /// Whether the inode read last is to be watched (``startWatchingInode()``), and its watch.
        var watchesInode = false
        var inodeWatch: Int32?
        /// An inode event's check is waiting to run.
        var inodeCheckPending = false
        /// When the verification waiting to run is due (the latest one asked for); nil when none waits.
        var verificationDue: ContinuousClock.Instant?
        /// Verifications run, and checks that coordinated (for tests that count work).
        var verificationsRun = 0
        var coordinatedChecks = 0
    }

    private let state = Mutex(State())
    /// Serializes the moves of the inode watch (a read's, a check's, the start and the stop), so that the watch
    /// the state names is the one held.
    private let inodeWatchLock = NSLock()
    /// The delegate, weakly; guarded by its own lock (a delegate is not `Sendable`).
    private let delegateLock = NSLock()
    private weak var delegate: (any FileCoordinationDelegate)?
    private let presenterQueue: OperationQueue
    private let changeQueue: DispatchQueue

    /// Makes a provider for the file at `fileURL`, not confined. Nothing is read until asked for.
    public override init(fileURL: URL) {
        (presenterQueue, changeQueue) = Self.makeQueues()
        super.init(fileURL: fileURL)
    }

    /// Makes a provider for the file at `fileURL`, confined beneath `confinement`'s root (see
    /// ``FileDataProvider``). Nothing is read until asked for.
    public override init(fileURL: URL, confinement: FileConfinement?) {
        (presenterQueue, changeQueue) = Self.makeQueues()
        super.init(fileURL: fileURL, confinement: confinement)
    }

    /// The presenter queue (serial) and the private queue of content checks.
    private static func makeQueues() -> (OperationQueue, DispatchQueue) {
        let presenterQueue = OperationQueue()
        presenterQueue.maxConcurrentOperationCount = 1
        presenterQueue.name = "quire.provider.presenter"
        return (presenterQueue, DispatchQueue(label: "quire.provider.changes"))
    }

    // MARK: CoordinatedFileDataProviding

    /// The provider itself.
    open var filePresenter: any FilePresenter { self }

    /// Who hears of content changes and deletions (held weakly).
    open var coordinationDelegate: (any FileCoordinationDelegate)? {
        get { delegateLock.withLock { delegate } }
        set { delegateLock.withLock { delegate = newValue } }
    }

    /// How long a read or write waits for other coordinators before it throws
    /// `FileCoordinationError.timedOut`; nil (the default, as Apple's) waits as long as it takes.
    open var coordinationTimeout: Duration? {
        get { state.withLock { $0.timeout } }
        set { state.withLock { $0.timeout = newValue } }
    }

    /// Called with how long each coordinated read or write of the provider waited before its accessor ran
    /// (for metrics); nil by default.
    open var coordinationWaitObserver: (@Sendable (Duration) -> Void)? {
        get { state.withLock { $0.waitObserver } }
        set { state.withLock { $0.waitObserver = newValue } }
    }

    /// True when the provider holds a copy of the bytes it last read or wrote and the file's directory is
    /// writable: then `.save` can write them back.
    open var isConflictResolutionAvailable: Bool {
        guard state.withLock({ $0.fileCopy != nil }) else { return false }
        return FileManager.default.isWritableFile(atPath: fileURL.deletingLastPathComponent().path)
    }

    /// The fingerprint of the content last read or written through this provider (nil before the first read).
    public var lastSeenFingerprint: ContentFingerprint? { state.withLock { $0.fingerprint } }

    /// The bytes last read with ``data()`` or written through a sink (the copy `.save` writes back), shared, not
    /// copied; nil before the first read.
    public var lastReadContents: Data? { state.withLock { $0.fileCopy } }

    /// The bytes last read or written, with their fingerprint (taken together: no hash again).
    package var lastContents: (bytes: Data, fingerprint: ContentFingerprint)? {
        state.withLock { state in
            guard let bytes = state.fileCopy, let fingerprint = state.copyFingerprint else { return nil }
            return (bytes, fingerprint)
        }
    }

    /// The bytes to open the file's PDF from: those this provider itself put in place last
    /// (``replaceContents(with:)``), with their fingerprint, when nothing was read or found changed since (once:
    /// the next call reads); else read through ``data()``, without a fingerprint. A program that writes the file
    /// after this provider's write is seen by the provider's check of the file, which reports the change as any
    /// other.
    /// - Throws: as ``data()``.
    package func contentsForOpening() throws -> (bytes: Data, fingerprint: ContentFingerprint?) {
        let written = state.withLock { state -> (Data, ContentFingerprint?)? in
            guard state.writtenUnread, let bytes = state.fileCopy, let fingerprint = state.copyFingerprint else {
                return nil
            }
            state.writtenUnread = false
            return (bytes, fingerprint)
        }
        return try written ?? (data(), nil)
    }

    /// `.save` writes the copy of the bytes last read or written back to `fileURL` (coordinated, atomic),
    /// restoring a deleted file; without a copy it does nothing. `.reload` and `.close` need nothing from the
    /// provider (whoever reloads reads again through ``data()``).
    /// - Throws: the I/O or coordination error of writing the copy back.
    open func resolveFileConflict(with resolution: FileConflictResolution) throws {
        guard resolution == .save, let copy = state.withLock({ $0.fileCopy }) else { return }
        let sink = try makeSink(options: [], retainingBytes: true) { Data() }
        guard sink.writeData(copy), sink.finish() else { throw sink.failure ?? DataProviderError.sinkFinished }
        try replaceContents(with: sink)
    }

    // MARK: reading and writing, coordinated

    /// All the bytes, read inside a coordinated read; remembered as the last-read content, with the identity of
    /// the descriptor they were read from.
    /// - Throws: a ``DataProviderError`` or a `FileCoordinationError`.
    open override func data() throws -> Data {
        var identity: FileIdentity?
        let bytes: Data
        do {
            bytes = try coordinatedRead { url in
                try FileSystemCalls.readFile(url.path, confinement: self.confinement) { descriptor, info in
                    identity = FileIdentity(info)
                    self.watchInode(descriptor)
                }
            }
        } catch let error as DataProviderError {
            state.withLock { $0.identity = FileIdentity(failure: error) }
            throw error
        }
        remember(ContentFingerprint(of: bytes), bytes: bytes, identity: identity)
        return bytes
    }

    /// At most `size` bytes at `offset`, read inside a coordinated read.
    /// - Throws: a ``DataProviderError`` or a `FileCoordinationError`.
    open override func readData(size: Int, atOffset offset: UInt64) throws -> Data {
        try coordinatedRead { url in
            try FileSystemCalls.readChunk(url.path, size: size, offset: offset, confinement: confinement)
        }
    }

    /// The file's size, read inside a coordinated read (0 if it cannot be read).
    open override var size: UInt64 {
        (try? coordinatedRead { url in
            try FileSystemCalls.status(url.path, confinement: confinement).map { UInt64($0.st_size) } ?? 0
        }) ?? 0
    }

    /// A sink beside the file; an `.append` sink copies the current bytes inside a coordinated read.
    /// - Throws: a ``DataProviderError`` or a `FileCoordinationError`.
    open override func createDataSink(options: DataSinkOptions) throws -> any DataSink {
        try makeSink(options: options, retainingBytes: true) {
            try self.coordinatedRead { url in try FileSystemCalls.readFile(url.path, confinement: self.confinement) }
        }
    }

    /// A finished sink made of the file at `url`, as ``FileDataProvider/createDataSink(adoptingFileAt:)``; its
    /// bytes are kept, remembered as the new content once the sink is in place.
    /// - Throws: a ``DataProviderError`` when the file cannot be read or given the file's permissions.
    open override func createDataSink(adoptingFileAt url: URL) throws -> any DataSink {
        try FileDataSink(adopting: url, target: fileURL, owner: self, retainingBytes: true)
    }

    /// Renames the sink over the file inside a coordinated write (other presenters are asked to relinquish,
    /// then told of the change; this provider is not), and remembers the new content.
    /// - Throws: as ``FileDataProvider/replaceContents(with:)``, or a `FileCoordinationError`.
    open override func replaceContents(with sink: any DataSink) throws {
        try putInPlace(sink) { _, contents in
            try coordinatedWrite(options: []) { url in
                try Self.rename(sink, over: url)
                // Inside the write: a coordinated check (an inode event of the file it replaced, say) sees the new
                // content as this provider's own, never as a change.
                let identity = FileSystemCalls.identity(url.path, confinement: confinement) { descriptor, _ in
                    self.watchInode(descriptor)
                }
                remember(contents.fingerprint, bytes: contents.bytes, identity: identity, written: true)
            }
            state.withLock { $0.deletionReported = false }
        }
        scheduleVerification()
    }

    /// Removes the file inside a coordinated `.forDeleting` write (other presenters accommodate first).
    /// - Throws: a ``DataProviderError`` or a `FileCoordinationError` (or a presenter's refusal).
    open override func deleteData() throws {
        try coordinatedWrite(options: .forDeleting) { url in
            try FileSystemCalls.unlink(url.path, confinement: confinement)
        }
        state.withLock { state in
            state.deletionReported = true  // its own deletion is not news to its delegate
            state.identity = .missing
        }
    }

    // MARK: FilePresenter

    /// The file (`fileURL`).
    open var presentedItemURL: URL? { fileURL }

    /// A private serial queue.
    open var presentedItemOperationQueue: OperationQueue { presenterQueue }

    /// True: changes made without coordination are reported too.
    open var observesUncoordinatedChanges: Bool { true }

    /// Lets the reader go ahead at once.
    open func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        reader(nil)
    }

    /// Lets the writer go ahead at once (reads wait in coordination anyway); when the write is over, checks
    /// the file once more after the watcher's suppression window (see ``presentedItemDidChange()``).
    open func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        writer { [weak self] in self?.scheduleVerification() }
    }

    /// Nothing to save at this level (a document saves through ``Document/save()``).
    open func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        completionHandler(nil)
    }

    /// Forwards to the delegate (the deletion waits for its completion handler), or lets it proceed.
    open func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        // A deletion that a verification already reported (its message came late) is not reported twice.
        let alreadyReported = state.withLock { state in
            defer { state.deletionReported = true }
            return state.deletionReported && !FileManager.default.fileExists(atPath: fileURL.path)
        }
        guard let delegate = coordinationDelegate, !alreadyReported else { return completionHandler(nil) }
        delegate.accommodatePresentedItemDeletion(for: self, completionHandler: completionHandler)
    }

    /// Follows the move and posts `Notification.Name.dataProviderFileURLDidChange`.
    open func presentedItemDidMove(to newURL: URL) {
        let oldURL = relocate(to: newURL)
        guard oldURL != fileURL else { return }
        NotificationCenter.default.post(
            name: .dataProviderFileURLDidChange, object: self, userInfo: ["oldURL": oldURL, "newURL": fileURL])
    }

    /// Checks the content on the private change queue and tells the delegate if it really changed.
    open func presentedItemDidChange() {
        changeQueue.async { self.checkForContentChange() }
    }

    /// Files have no subitems: lets the deletion proceed.
    open func accommodatePresentedSubitemDeletion(
        at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void
    ) {
        completionHandler(nil)
    }

    /// Files have no subitems: ignored.
    open func presentedSubitemDidAppear(at url: URL) {}

    /// Files have no subitems: ignored.
    open func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) {}

    /// Files have no subitems: ignored.
    open func presentedSubitemDidChange(at url: URL) {}

    /// A version of the file was added (a conflict's losing side, say): ignored here; override to show it.
    open func presentedItemDidGain(_ version: FileVersion) {}

    /// A version of the file was removed: ignored here.
    open func presentedItemDidLose(_ version: FileVersion) {}

    /// A conflict version of the file was resolved: ignored here.
    open func presentedItemDidResolveConflict(_ version: FileVersion) {}

    /// Files have no subitems: ignored.
    open func presentedSubitem(at url: URL, didGain version: FileVersion) {}

    /// Files have no subitems: ignored.
    open func presentedSubitem(at url: URL, didLose version: FileVersion) {}

    /// Files have no subitems: ignored.
    open func presentedSubitem(at url: URL, didResolve version: FileVersion) {}

    // MARK: private

    /// Compares the file with the fingerprint last seen and tells the delegate of a difference. A verification
    /// (`verifying`) also reports a file found missing that nobody reported deleted. A file that is, by a look
    /// without coordination, exactly the one last seen costs no coordination (the echo of this provider's own
    /// write, a verification that finds nothing); any other is read inside a coordinated read.
    private func checkForContentChange(verifying: Bool = false) {
        guard let delegate = coordinationDelegate else { return }
        if verifying { state.withLock { $0.verificationsRun += 1 } }
        if isUnchangedByUncoordinatedLook() { return }
        state.withLock { $0.coordinatedChecks += 1 }
        let current: ContentFingerprint
        var identity: FileIdentity?
        do {
            current = try coordinatedRead { url in
                try FileSystemCalls.fingerprintOfFile(url.path, confinement: confinement) { descriptor, info in
                    identity = FileIdentity(info)
                    self.watchInode(descriptor)
                }
            }
        } catch let error as DataProviderError where error.isFileMissing {
            state.withLock { state in
                state.identity = .missing
                state.writtenUnread = false
            }
            let unreported = state.withLock { state in
                guard verifying, state.fingerprint != nil, !state.deletionReported else { return false }
                state.deletionReported = true
                return true
            }
            if unreported { delegate.accommodatePresentedItemDeletion(for: self) { _ in } }
            return
        } catch let error as DataProviderError {
            // Something is there that cannot be read as this file (a symbolic link, FIFO, device or directory in
            // its place, a second hard link under confinement, a read error): the delegate hears of it once, and
            // its reload learns what is wrong.
            let report = state.withLock { state in
                state.identity = FileIdentity(failure: error)
                state.writtenUnread = false
                defer { state.unreadableReported = true }
                return !state.unreadableReported
            }
            if report { delegate.presentedItemDidChange(for: self) }
            return
        } catch {
            return  // coordination failed (timed out, say): nothing is known of the file
        }
        let changed = state.withLock { state in
            let changed = state.fingerprint != current || state.unreadableReported
            if changed { state.writtenUnread = false }
            state.fingerprint = current
            state.identity = identity
            state.deletionReported = false
            state.unreadableReported = false
            return changed
        }
        if changed { delegate.presentedItemDidChange(for: self) }
    }

    /// Checks the file once more shortly after the presenter was registered (once the watcher surely sees the
    /// file, past the echo window of any coordinated write of this process): a change made between the
    /// provider's last read and its registration reached no presenter, and is reported now. Whoever registers a
    /// provider whose file another program may change at any moment (a service, right after an upload) calls it
    /// after `FilePresenterCoordinator.observe`. Costs one coordinated read and a fingerprint.
    public func verifyAfterRegistration() {
        scheduleVerification()
    }

    /// Checks the file again once the watcher's suppression of a coordinated write's echo is surely over: a
    /// program that changed or deleted the file without coordination just after (or during) that write is not
    /// missed. Verifications asked for while one waits are one check, at the latest one's time (an upload's
    /// write and its registration ask within a millisecond). Costs a read and a fingerprint, without
    /// coordination, when nothing changed (see ``isUnchangedByUncoordinatedLook()``); a coordinated check else.
    private func scheduleVerification() {
        let due = ContinuousClock.now + CoordinationService.uncoordinatedChangeDebounce * 2 + .milliseconds(20)
        let first = state.withLock { state in
            defer { state.verificationDue = max(state.verificationDue ?? due, due) }
            return state.verificationDue == nil
        }
        if first { runVerification(at: due) }
    }

    /// Runs the waiting verification at `instant`, or later when a later one was asked for meanwhile.
    private func runVerification(at instant: ContinuousClock.Instant) {
        onChangeQueue(after: max(.zero, instant - ContinuousClock.now)) { [weak self] in
            guard let self else { return }
            let later = self.state.withLock { state -> ContinuousClock.Instant? in
                guard let due = state.verificationDue, due > ContinuousClock.now else {
                    state.verificationDue = nil
                    return nil
                }
                return due
            }
            if let later { return self.runVerification(at: later) }
            self.checkForContentChange(verifying: true)
        }
    }

    /// Runs `body` on the private change queue once `delay` has passed.
    private func onChangeQueue(after delay: Duration, _ body: @escaping @Sendable () -> Void) {
        let nanoseconds =
            Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
        changeQueue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: body)
    }

    /// A check's first look, without coordination: true when the file at the path is, by its identity
    /// (device, inode, size, modification and change times) and its fingerprint, exactly the one this provider last wrote, read or
    /// checked, with nothing reported unreadable or deleted since. Then nothing changed and nothing is updated.
    /// Reading without coordination is sound here because only "unchanged" is concluded: a coordinated
    /// writer's half-written file, a replaced or a missing one differs in identity or in fingerprint, and is
    /// then checked inside a coordinated read as any change is.
    private func isUnchangedByUncoordinatedLook() -> Bool {
        let known = state.withLock { state -> (ContentFingerprint, FileIdentity)? in
            guard let fingerprint = state.fingerprint, let identity = state.identity,
                !state.unreadableReported, !state.deletionReported
            else { return nil }
            return (fingerprint, identity)
        }
        guard let known else { return false }
        var identity: FileIdentity?
        guard
            let current = try? FileSystemCalls.fingerprintOfFile(
                fileURL.path, confinement: confinement, opened: { _, info in identity = FileIdentity(info) })
        else { return false }
        return current == known.0 && identity == known.1
    }

    /// How many verifications this provider ran, and how many of its checks coordinated (for tests that count
    /// work); `isVerificationWaiting` is true while a verification is scheduled.
    package var checksMade: (verifications: Int, coordinated: Int, isVerificationWaiting: Bool) {
        state.withLock { ($0.verificationsRun, $0.coordinatedChecks, $0.verificationDue != nil) }
    }

    private func remember(
        _ fingerprint: ContentFingerprint, bytes: Data?, identity: FileIdentity?, written: Bool = false
    ) {
        state.withLock { state in
            state.fingerprint = fingerprint
            state.identity = identity
            state.unreadableReported = false
            state.writtenUnread = written && bytes != nil
            if let bytes {
                state.fileCopy = bytes
                state.copyFingerprint = fingerprint
            }
        }
    }

    // MARK: the file as it is now

    /// Whether the file at `fileURL` is, as far as its metadata tell, the one the provider last read or checked:
    /// it is opened as every read opens it (beneath the confinement, through no symbolic link, a regular file, with
    /// one link when confined) and its ``FileIdentity`` compared with the one of the descriptor last read. No byte
    /// is read and nothing is coordinated: one `open` (`openat2`), one `fstat`, one `close`, so that whoever serves
    /// the bytes the provider holds can afford it on every answer. False before the first read, and whenever the
    /// file was replaced, written, linked again, or is something else now; then ``checkForChangeNow()``.
    public var isUnchangedSinceLastLook: Bool {
        guard let known = state.withLock({ $0.identity }) else { return false }
        return FileSystemCalls.identity(fileURL.path, confinement: confinement) == known
    }

    /// What the last read or check found at the path (nil before the first).
    public var lastLook: FileIdentity? { state.withLock { $0.identity } }

    /// Checks the file now, as a change reported by its watcher is checked (inside a coordinated read, by its
    /// fingerprint), and returns once the delegate has been told of what changed (a reload, a file that cannot be
    /// read any more, a deletion). Blocking: the delegate's reload runs on the calling thread's behalf.
    public func checkForChangeNow() {
        changeQueue.sync { checkForContentChange(verifying: true) }
    }

    /// Waits until the checks already started (a watcher's report, an inode event) have told the delegate what
    /// they found. A check notes what it found at the path before the delegate hears of it: whoever sees that
    /// note calls this before trusting the delegate's state.
    public func waitForChecksInProgress() {
        changeQueue.sync {}
    }

    // MARK: the inode watch

    /// Starts watching the inode of the file (``InodeWatch``), now and after every read; called when the provider
    /// is observed. A file that differs from the one last read (or that cannot be opened) is checked at once.
    func startWatchingInode() {
        guard InodeWatch.isEnabled.load(ordering: .relaxed) else { return }
        state.withLock { $0.watchesInode = true }
        let now = FileSystemCalls.identity(fileURL.path, confinement: confinement) { descriptor, _ in
            self.watchInode(descriptor)
        }
        if now != state.withLock({ $0.identity }) { inodeDidChange() }
    }

    /// Stops watching the inode (the provider is no longer observed).
    func stopWatchingInode() {
        inodeWatchLock.withLock {
            let watch = state.withLock { state -> Int32? in
                state.watchesInode = false
                defer { state.inodeWatch = nil }
                return state.inodeWatch
            }
            if let watch { InodeWatch.shared.unwatch(watch, for: self) }
        }
    }

    /// Moves the inode watch to the file open at `descriptor` (the one just read), when the inode is watched.
    private func watchInode(_ descriptor: Int32) {
        inodeWatchLock.withLock {
            let (watches, previous) = state.withLock { ($0.watchesInode, $0.inodeWatch) }
            guard watches else { return }
            let watch = InodeWatch.shared.watch(descriptor, for: self, replacing: previous)
            state.withLock { $0.inodeWatch = watch }
        }
    }

    /// An event of the watched inode: the file is checked (as a change its directory reported) once the
    /// debounce window of uncoordinated changes has passed, once for all the events of that window.
    func inodeDidChange() {
        let first = state.withLock { state in
            defer { state.inodeCheckPending = true }
            return !state.inodeCheckPending
        }
        guard first else { return }
        onChangeQueue(after: CoordinationService.uncoordinatedChangeDebounce) { [weak self] in
            guard let self else { return }
            self.state.withLock { $0.inodeCheckPending = false }
            self.checkForContentChange()
        }
    }

    deinit {
        if let watch = state.withLock({ $0.inodeWatch }) { InodeWatch.shared.unwatch(watch, for: self) }
    }

    private func coordinator() -> FileCoordinator {
        let coordinator = FileCoordinator(filePresenter: self)
        coordinator.timeout = coordinationTimeout
        return coordinator
    }

    func coordinatedRead<T>(_ body: (URL) throws -> T) throws -> T {
        let started = ContinuousClock.now
        let observer = coordinationWaitObserver
        return try coordinator().coordinate(readingItemAt: fileURL, options: []) { url in
            observer?(ContinuousClock.now - started)
            return try body(url)
        }
    }

    func coordinatedWrite<T>(options: FileCoordinator.WritingOptions, _ body: (URL) throws -> T) throws -> T {
        let started = ContinuousClock.now
        let observer = coordinationWaitObserver
        return try coordinator().coordinate(writingItemAt: fileURL, options: options) { url in
            observer?(ContinuousClock.now - started)
            return try body(url)
        }
    }
}
