import CoordinationArbiter
import Foundation
import QuireSystem
import Synchronization

/// Coordinates reading and writing of files and directories with other coordinators and with file presenters,
/// in this process and in others: Quire's counterpart of Apple's `NSFileCoordinator`, with the same semantics.
///
/// Readers share an item; a writer has it alone; presenters of the item are asked to relinquish it, save or
/// accommodate a deletion first, and are told afterwards what changed. A coordinator is meant for one operation
/// (or a few, on one thread). Quire deviates from Apple where Linux or safety asks for it: non-file URLs throw
/// ``FileCoordinationError/notAFileURL(_:)``, waits can time out (``timeout``), and a write nested in a
/// single-URL write accessor throws ``FileCoordinationError/invalidNesting`` instead of raising an exception.
public final class FileCoordinator: @unchecked Sendable {
    /// How a read is coordinated. Raw values are Apple's.
    public struct ReadingOptions: OptionSet, Sendable {
        /// The raw bits, as Apple's `NSFileCoordinator.ReadingOptions`.
        public let rawValue: UInt
        /// Makes options from raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Do not ask presenters to save their changes first.
        public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
        /// If the item is a symbolic link, the accessor gets the link's target.
        public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
        /// Only metadata is read. Coordinated like a plain read on Linux (nothing is ever "not downloaded").
        public static let immediatelyAvailableMetadataOnly = ReadingOptions(rawValue: 1 << 2)
        /// Read in order to upload: the accessor gets a temporary snapshot, which it may move away, not the item.
        ///
        /// As Apple: the snapshot is made under the read claim, the claim ends once it exists (writers may then
        /// proceed while the accessor uploads), and whatever is left of it is removed when the accessor returns
        /// or throws. A directory's snapshot is a zip archive `<name>.zip` holding `<name>/` and its contents
        /// (symbolic links stored as links, FIFOs, sockets and devices left out); a file's is a copy with the same
        /// name, as Apple zips directories only. A symbolic link is snapshotted only with `.resolvesSymbolicLink`
        /// (its target is claimed then); without it the snapshot fails. Each access puts its snapshots in a new private directory
        /// (0700) under `$TMPDIR`. When the same access also writes (or reads without this option), the claim lasts
        /// until the accessor returns. A snapshot that cannot be made throws
        /// ``FileCoordinationError/snapshotFailed(_:_:)`` and the accessor does not run.
        public static let forUploading = ReadingOptions(rawValue: 1 << 3)
    }

    /// How a write is coordinated; give at most one. Raw values are Apple's.
    public struct WritingOptions: OptionSet, Sendable {
        /// The raw bits, as Apple's `NSFileCoordinator.WritingOptions`.
        public let rawValue: UInt
        /// Makes options from raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The item will be deleted: presenters accommodate the deletion; a directory's contents are excluded.
        public static let forDeleting = WritingOptions(rawValue: 1 << 0)
        /// The item will be moved: a directory's contents are excluded and their presenters relinquish too.
        public static let forMoving = WritingOptions(rawValue: 1 << 1)
        /// Presenters save their changes first, so the write can merge them.
        public static let forMerging = WritingOptions(rawValue: 1 << 2)
        /// Whatever is at the URL will be replaced: as `.forDeleting`, and the URL does not follow moves.
        public static let forReplacing = WritingOptions(rawValue: 1 << 3)
        /// Only metadata that does not depend on content changes: presenters get no `presentedItemDidChange`.
        public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)
    }

    private struct State {
        var purpose: PurposeID
        var purposeWasSet = false
        var cancelled = false
        var waiting = WaitingRequests()
        /// Granted `prepare(...)` accesses whose completion handler has not been called yet.
        var openBatches: [RequestID] = []
        /// Granted requests whose grant asked for the presence of their items (see ``ItemPresenceProbe``).
        var reportingPresence: [RequestID] = []
    }

    /// The requests of a coordinator that wait for their grant: usually one, so it is kept inline and a set
    /// is made only for more.
    private struct WaitingRequests {
        /// The first waiting request (the only one, almost always).
        private var first: RequestID?
        /// Any further waiting requests; empty (and never allocated) with one request.
        private var others: Set<RequestID> = []

        /// Every waiting request.
        var all: [RequestID] { (first.map { [$0] } ?? []) + others }

        /// Adds a request.
        mutating func insert(_ request: RequestID) {
            if first == nil { first = request } else { others.insert(request) }
        }

        /// Removes a request, if it is waiting.
        mutating func remove(_ request: RequestID) {
            if first == request { first = nil } else if !others.isEmpty { others.remove(request) }
        }

        /// True if the request is waiting.
        func contains(_ request: RequestID) -> Bool {
            first == request || (!others.isEmpty && others.contains(request))
        }
    }

    private let state: Mutex<State>
    private let ownPresenter: PresenterBox?
    /// The domain's machinery this coordinator uses.
    let client: CoordinationClient

    /// How long a coordinated call may wait before it throws ``FileCoordinationError/timedOut(_:)``;
    /// nil (the default, as Apple) waits forever.
    public var timeout: Duration? {
        get { timeoutStorage.withLock { $0 } }
        set { timeoutStorage.withLock { $0 = newValue } }
    }
    private let timeoutStorage = Mutex<Duration?>(nil)

    /// Makes a coordinator. A coordinator made with a presenter never sends that presenter messages, never
    /// blocks other coordinators made with it, and shares its purpose identifier.
    public convenience init(filePresenter: (any FilePresenter)? = nil) {
        self.init(filePresenter: filePresenter, domain: .default)
    }

    /// Makes a coordinator of `domain`: it coordinates with that domain's coordinators and presenters only
    /// (see ``CoordinationDomain``); otherwise as ``init(filePresenter:)``.
    public init(filePresenter: (any FilePresenter)? = nil, domain: CoordinationDomain) {
        client = domain.client
        if let filePresenter {
            ownPresenter = PresenterBox(presenter: filePresenter)
            state = Mutex(State(purpose: client.registry.purpose(for: filePresenter)))
        } else {
            ownPresenter = nil
            state = Mutex(State(purpose: PurposeID.unique()))
        }
    }

    /// Registers a presenter with every coordinator of the default domain: of the process (and, with the shared
    /// scope, of the user). Registering the same presenter twice is harmless; one ``removeFilePresenter(_:)``
    /// removes it. For another domain, use ``CoordinationDomain/addFilePresenter(_:)``.
    public class func addFilePresenter(_ filePresenter: any FilePresenter) {
        CoordinationDomain.default.addFilePresenter(filePresenter)
    }

    /// Unregisters a presenter from the default domain: it receives no further messages. Removing an
    /// unregistered one is harmless.
    public class func removeFilePresenter(_ filePresenter: any FilePresenter) {
        CoordinationDomain.default.removeFilePresenter(filePresenter)
    }

    /// The presenters registered with the default domain in this process, in registration order.
    public class var filePresenters: [any FilePresenter] {
        CoordinationDomain.default.filePresenters
    }

    /// Extensions (without the dot, case-insensitive) of directories treated as one item, like Apple's file
    /// packages. Defaults to the comma-separated list in `QUIRE_PACKAGE_EXTENSIONS` (none if unset).
    public class var filePackageExtensions: Set<String> {
        get { packageExtensions.withLock { $0 } }
        set { packageExtensions.withLock { $0 = Set(newValue.map { $0.lowercased() }) } }
    }
    private static let packageExtensions = Mutex<Set<String>>(
        Set(
            (ProcessEnvironment.value("QUIRE_PACKAGE_EXTENSIONS") ?? "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                .filter { !$0.isEmpty }))

    /// Identifies the operation: coordinators with the same purpose identifier never block each other, also
    /// across processes. Unique by default. It may be set once, never to "", and never on a coordinator made
    /// with a presenter; each violation traps (Apple raises an exception).
    public var purposeIdentifier: String {
        get { state.withLock { $0.purpose.rawValue } }
        set {
            precondition(!newValue.isEmpty, "FileCoordinator.purposeIdentifier cannot be empty")
            precondition(ownPresenter == nil, "FileCoordinator.purposeIdentifier cannot be set on a coordinator made with a file presenter")
            state.withLock { state in
                precondition(!state.purposeWasSet, "FileCoordinator.purposeIdentifier can be set only once")
                state.purposeWasSet = true
                state.purpose = PurposeID(newValue)
            }
        }
    }

    /// Cancels every wait of this coordinator, now and later (cancellation is sticky): waiting calls throw
    /// `CocoaError(.userCancelled)` without running their accessor; a running accessor finishes normally.
    public func cancel() {
        let waiting = state.withLock { state -> [RequestID] in
            state.cancelled = true
            return state.waiting.all
        }
        for request in waiting { client.endpoint.submit(.cancelRequested(request)) }
    }

    /// Announces a move before it happens. Apple uses it only for sandbox extensions; it does nothing on Linux.
    public func item(at oldURL: URL, willMoveTo newURL: URL) {}

    /// Reports, from inside a coordinated write accessor, that the item at `oldURL` now is at `newURL`:
    /// presenters of the item and of its contents get `presentedItemDidMove(to:)`, presenters of the
    /// directories involved get subitem messages, and waiting intents follow the item (they still wait for this
    /// access, which holds the item's new place too until it ends). Outside a write accessor of this coordinator
    /// it does nothing.
    public func item(at oldURL: URL, didMoveTo newURL: URL) {
        guard let old = ItemLocator.pathIfFileURL(oldURL), let new = ItemLocator.pathIfFileURL(newURL), old != new,
            let request = AccessFrames.current.innermost(of: ObjectIdentifier(self))
                ?? state.withLock({ $0.openBatches.last })
        else { return }
        client.endpoint.submit(.itemMoved(request, from: old, to: new))
    }

    // MARK: - Requests

    /// One intent as the caller gave it.
    struct Target: Sendable {
        let url: URL
        let intent: AccessIntent
        /// Whether the granted path should be reported back even if it did not move (never for .forReplacing).
        let followsMoves: Bool
    }

    /// The target of one intent; `includesContents` also messages the presenters of everything inside the item.
    func target(
        _ url: URL, _ access: AccessIntent.Access, includesContents: Bool = false
    ) throws(FileCoordinationError) -> Target {
        var resolvesLink = false
        var followsMoves = true
        switch access {
        case .reading(let options): resolvesLink = options.contains(.resolvesSymbolicLink)
        case .writing(let options): followsMoves = !options.contains(.forReplacing)
        }
        let path = try ItemLocator.path(of: url, resolvingLastComponent: resolvesLink)
        let extensions = Self.filePackageExtensions
        let depths = extensions.isEmpty ? [] : path.packageRootDepths(extensions: extensions)
        let intent = AccessIntent(
            path: path, access: access, packageRootDepths: depths, includesContents: includesContents)
        return Target(url: url, intent: intent, followsMoves: followsMoves)
    }

    /// Submits a request and calls `outcome` once with the granted URLs or the error, possibly synchronously.
    /// Pass `request` when `outcome` must know the id (a grant may come before this returns).
    @discardableResult
    func submit(
        _ targets: [Target], as request: RequestID? = nil, nestedIn: RequestID?,
        outcome: @escaping @Sendable (Result<[URL], any Error>) -> Void
    ) -> RequestID? {
        submit(targets, as: request, nestedIn: nestedIn, to: .handler(outcome))
    }

    /// Submits a request and gives its outcome once to `outcome` (a handler or a waiting thread), possibly
    /// synchronously.
    @discardableResult
    func submit(
        _ targets: [Target], as request: RequestID? = nil, nestedIn: RequestID?,
        to outcome: OutcomeReceiver
    ) -> RequestID? {
        let request = request ?? client.makeRequestID()
        // One lock: the cancellation check, the registration as waiting, and the purpose.
        let purpose = state.withLock { state -> PurposeID? in
            if state.cancelled { return nil }
            state.waiting.insert(request)
            return state.purpose
        }
        guard let purpose else {
            outcome(.failure(CocoaError(.userCancelled)))
            return nil
        }
        let deadline = timeout.map { SystemInterface.now().advanced(byNanoseconds: Self.nanoseconds($0)) }
        let failures = client.failures
        // The handler holds the coordinator strongly (a weak reference would allocate a side table on every
        // coordinator); it is released as soon as the request is granted or failed, and every caller keeps
        // the coordinator alive until then anyway.
        client.request(
            request, purpose: purpose, intents: targets.map { $0.intent }, deadline: deadline, nestedIn: nestedIn
        ) { [self] action in
            state.withLock { state in
                state.waiting.remove(request)
                if case .grant(_, _, true) = action { state.reportingPresence.append(request) }
            }
            switch action {
            case .grant(_, let paths, _):
                outcome(.success(zip(targets, paths).map { target, path in
                    target.followsMoves && path != target.intent.path ? ItemLocator.url(of: path) : target.url
                }))
            case .fail(_, let failure):
                switch failure {
                case .cancelled: outcome(.failure(CocoaError(.userCancelled)))
                case .timedOut(let path): outcome(.failure(FileCoordinationError.timedOut(ItemLocator.url(of: path))))
                case .presenterFailed(let encoded): outcome(.failure(failures.take(encoded)))
                }
            case .unavailable(_, let reason):
                outcome(.failure(FileCoordinationError.arbiterUnavailable(reason)))
            case .deliver:
                break
            }
        }
        // A cancel that raced with the submission did not see this request: cancel it now.
        if state.withLock({ $0.cancelled && $0.waiting.contains(request) }) {
            client.endpoint.submit(.cancelRequested(request))
        }
        return request
    }

    /// Runs a synchronous coordinated access: waits, runs `accessor` with the granted URLs, ends the access.
    func coordinateSynchronously<T>(
        _ targets: [Target], isSingleWrite: Bool, accessor: ([URL]) throws -> T
    ) throws -> T {
        let frames = AccessFrames.current
        let writes = targets.contains { if case .writing = $0.intent.access { true } else { false } }
        if writes && frames.forbidsWrite(by: ObjectIdentifier(self), of: targets.map(\.intent.path)) {
            throw FileCoordinationError.invalidNesting
        }
        let nestedIn = frames.innermost(of: ObjectIdentifier(self)) ?? state.withLock { $0.openBatches.last }
        let waiter = AccessWaiter.acquire()
        let request = submit(targets, nestedIn: nestedIn, to: .waiter(waiter))
        let granted = try client.outcome(of: waiter).get()
        guard let request else { return try accessor(granted) }
        let snapshots: UploadSnapshots?
        do {
            snapshots = try UploadSnapshots.makeIfNeeded(of: targets, at: granted)
        } catch {
            _ = takesPresence(request)
            end(request)
            throw error
        }
        defer { snapshots?.remove() }
        let urls = snapshots?.urls ?? granted
        if let snapshots, snapshots.endsClaimEarly {
            // A read for uploading alone: its claim ends once the snapshot exists, and it creates nothing.
            _ = takesPresence(request)
            end(request)
            return try accessor(urls)
        }
        let probe = takesPresence(request) ? ItemPresenceProbe(targets: targets, urls: granted) : nil
        let carrier = writes ? VersionIdentityCarrier(targets: targets, urls: granted) : nil
        frames.push(
            AccessFrames.Frame(
                coordinator: ObjectIdentifier(self), request: request, isSingleWrite: isSingleWrite,
                paths: targets.map(\.intent.path)))
        defer {
            frames.pop()
            carrier?.finish()
            end(request, presence: probe?.finish() ?? [])
        }
        return try accessor(urls)
    }

    /// True (once) if the grant of `request` asked for the presence of its items.
    func takesPresence(_ request: RequestID) -> Bool {
        state.withLock { state in
            guard let index = state.reportingPresence.firstIndex(of: request) else { return false }
            state.reportingPresence.remove(at: index)
            return true
        }
    }

    /// Ends a granted access and re-reads the own presenter's URL (a write on its behalf may have created it).
    func end(_ request: RequestID, presence: [ItemPresence?] = []) {
        client.accessEnded(request, presence: presence)
        if let ownPresenter, let entry = client.registry.entry(of: ownPresenter.presenter) {
            let path = ItemLocator.pathIfFileURL(ownPresenter.presenter.presentedItemURL)
            if client.registry.updatePath(entry.id, to: path) {
                client.presenterMoved(entry.id, path: path)
            }
        }
    }

    func openBatch(_ request: RequestID) { state.withLock { $0.openBatches.append(request) } }

    func closeBatch(_ request: RequestID) { state.withLock { $0.openBatches.removeAll { $0 == request } } }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}

/// Where a request's outcome goes: a handler, or a waiting thread (which needs no closure, so no allocation).
enum OutcomeReceiver: Sendable {
    /// A handler, called once with the outcome.
    case handler(@Sendable (Result<[URL], any Error>) -> Void)
    /// A thread blocked in ``AccessWaiter/wait()``.
    case waiter(AccessWaiter)

    /// Delivers the outcome.
    func callAsFunction(_ result: Result<[URL], any Error>) {
        switch self {
        case .handler(let handler): handler(result)
        case .waiter(let waiter): waiter.resolve(result)
        }
    }
}
