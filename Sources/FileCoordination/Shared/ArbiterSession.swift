import CoordinationArbiter

/// This process's session with the shared arbiter as a pure state machine: what it has declared (presenters,
/// requests granted or waiting) and where its connection stands (connecting, saying hello, connected, waiting to
/// try again, unavailable).
///
/// Events in, actions out, as ``Arbiter``: no socket, no lock, no clock (every event brings `now`), no thread.
/// ``SharedArbiterConnection`` is its driver: it performs ``Action/connect(attempt:)`` (connect or host, then
/// hello) on its own thread, writes ``Action/send(_:attempt:)`` frames, closes sockets, and feeds back what
/// happened. Every frame or report names the attempt it belongs to, so that a late frame of a closed connection
/// or a duplicate answer changes nothing. A frame a host must not send ends the connection (the session
/// reconnects), never the process.
///
/// When the host dies (``connectionLost(attempt:reason:now:)``), presenters whose round was cut short get their
/// reacquire, and a new series of attempts starts; on the next ``WireFrame/welcome(version:clientID:)`` the
/// session registers every presenter, re-declares held accesses (`reclaim`), submits waiting requests again with
/// what is left of their timeouts and sends ``WireFrame/redeclared``. If a series finds no host within
/// ``patience``, waiting requests fail with ``ClientAction/unavailable(_:_:)``; the next request starts a new
/// series.
struct ArbiterSession {
    /// How long a series of connection attempts may take, hosting included.
    static let patience: UInt64 = 2_000_000_000
    /// How long a host may take to answer hello.
    static let handshakeTimeout: UInt64 = 2_000_000_000
    /// The pause between two attempts of one series (a host on its way out still accepts connections).
    static let retryPause: UInt64 = 500_000

    /// One attempt to connect, within a series that gives up at `giveUp`.
    struct Attempt: Equatable, Sendable {
        /// Unique in the session, increasing.
        let number: UInt64
        /// When the series gives up.
        let giveUp: Instant
        /// Whether to send ``WireFrame/redeclared`` after declaring everything (this process talked to a host
        /// before: the new one may be waiting for it).
        let redeclaring: Bool
        /// The versions its `hello` offers.
        var offer = VersionNegotiation.current.offer()
    }

    /// Where the connection stands. Legal transitions:
    /// - `idle` → `connecting` (an event needs a host: the first one, or a request or snapshot after a failure);
    /// - `connecting` → `handshaking` (connected, hello sent) | `waitingToRetry` | `idle(unavailable:)`;
    /// - `handshaking` → `connected` (welcome) | `waitingToRetry` (lost, no answer in time) | `idle(unavailable:)`
    ///   (refused, or out of patience);
    /// - `waitingToRetry` → `connecting` (its time came);
    /// - `connected` → `connecting` (the connection was lost or the host broke the protocol);
    /// - `failed` is final (a configuration that can never work).
    enum Phase: Equatable, Sendable {
        /// Not connected and not trying; `unavailable` says why the last series failed (nil: never tried).
        case idle(unavailable: String?)
        /// The driver is connecting (or hosting) for the attempt.
        case connecting(Attempt)
        /// Hello is sent; welcome is awaited until `deadline`.
        case handshaking(Attempt, deadline: Instant)
        /// The attempt failed; the next one starts at `retryAt`.
        case waitingToRetry(Attempt, retryAt: Instant, reason: String)
        /// Welcomed on the connection of this attempt.
        case connected(attempt: UInt64)
        /// Nothing will ever connect.
        case failed(String)
    }

    /// What the driver must do, in order.
    enum Action: Equatable, Sendable {
        /// Connect to the host (starting it if nobody does) and send hello, off every lock and off Swift's
        /// cooperative pool; then feed ``connected(attempt:now:)`` or ``connectFailed(attempt:reason:retryable:now:)``.
        /// The hello makes `offer` (``VersionNegotiation/Offer/hello(pid:commandLine:)``).
        case connect(attempt: UInt64, offer: VersionNegotiation.Offer = VersionNegotiation.current.offer())
        /// Write the frame on the connection of the attempt (after the frames before it).
        case send(WireFrame, attempt: UInt64)
        /// Close the socket of the attempt.
        case close(attempt: UInt64)
        /// Give the action to the client (grants, failures, deliveries).
        case perform(ClientAction)
        /// Answer the snapshot query with this tag.
        case answerSnapshot(tag: UInt64, SnapshotAnswer)
        /// Map the host's hand-over board `name` (in the coordination directory) for the connection of the
        /// attempt: the connection's cell and its generation (``HandOverBoard``).
        case useBoard(attempt: UInt64, name: String, cell: UInt64, generation: UInt32)
    }

    /// The answer to a snapshot query.
    enum SnapshotAnswer: Equatable, Sendable {
        case snapshot(WireSnapshot)
        /// No host could answer: why.
        case unavailable(String)
    }

    private struct Outstanding {
        let purpose: PurposeID
        var intents: [AccessIntent]
        let deadline: Instant?
        let nestedIn: RequestID?
        /// When it was submitted, to keep its place in the queue across a change of host.
        let submitted: Instant
        var granted = false
        var cancelled = false
        /// ``predictionChanges`` when it was granted (nil while it waits).
        var changesAtGrant: UInt64?
    }

    private struct PresenterRecord {
        let purpose: PurposeID
        var path: ItemPath?
        let observes: Bool
    }

    /// Where the connection stands.
    private(set) var phase: Phase
    /// The protocol versions this session speaks.
    let negotiation: VersionNegotiation
    /// The file-package extensions of this process, declared to every host that speaks version 5.
    let packageExtensions: [String]
    /// The version agreed with the current host (meaningful while connected): frames it lacks are not sent.
    private(set) var agreedVersion: UInt16 = 0
    /// The next attempt of the series sends the hello of a build from before negotiation: the last one's
    /// host closed the connection on a negotiating hello without answering, as such a host does.
    private var legacyHelloNext = false
    private var nextAttempt: UInt64 = 1
    private var everConnected = false
    private var presenters: [PresenterID: PresenterRecord] = [:]
    private var requests: [RequestID: Outstanding] = [:]
    /// Messages of the current host whose reply it waits for (a reply to an older host's message is dropped).
    private var awaitingReplies: Set<MessageID> = []
    /// Relinquish messages whose reacquire has not come: the presenter gets it if the host dies first.
    private var relinquished: [MessageID: PresenterID] = [:]
    /// Events that are not part of what is declared again (moves, version notices), submitted while not
    /// connected: sent after the declarations, dropped if no host can be had.
    private var pendingFrames: [WireFrame] = []
    /// Snapshot queries to send once connected.
    private var snapshotsToSend: [UInt64] = []
    /// Snapshot queries sent on the current connection.
    private var snapshotsSent: Set<UInt64> = []
    /// How many events that change what the host predicts (``ClientEvent/changesPredictions``) were submitted.
    private var predictionChanges: UInt64 = 0

    /// A session that has not tried to connect yet; with `permanentFailure`, one that never will (every
    /// request is answered ``ClientAction/unavailable(_:_:)`` with it). `negotiation` gives the protocol versions
    /// it offers; `packageExtensions` are declared to each host right after its welcome.
    init(
        permanentFailure: String? = nil, negotiation: VersionNegotiation = .current, packageExtensions: [String] = []
    ) {
        phase = permanentFailure.map { .failed($0) } ?? .idle(unavailable: nil)
        self.negotiation = negotiation
        self.packageExtensions = packageExtensions
    }

    /// When the driver must feed ``timePassed(now:)`` next, if ever.
    var deadline: Instant? {
        switch phase {
        case .handshaking(_, let deadline): return deadline
        case .waitingToRetry(_, let retryAt, _): return retryAt
        case .idle, .connecting, .connected, .failed: return nil
        }
    }

    /// The number of requests recorded (granted or waiting), for tests.
    var outstandingRequests: Int { requests.count }

    /// Whether something may arrive that nobody waits for on the socket: a message for a presenter, the answer
    /// to a waiting request or query. (Held accesses alone need the host's end of stream noticed, not at once.)
    var expectsFrames: Bool {
        !presenters.isEmpty || !snapshotsSent.isEmpty || requests.values.contains { !$0.granted }
    }

    /// Whether a connection is being made for events already submitted (a process about to exit waits for it).
    var isConnecting: Bool {
        switch phase {
        case .connecting, .handshaking, .waitingToRetry: return true
        case .idle, .connected, .failed: return false
        }
    }

    // MARK: events from the client

    /// The client submitted an event: it is recorded (to be declared again to a new host) and sent if connected.
    mutating func eventSubmitted(_ event: ClientEvent, now: Instant) -> [Action] {
        if case .failed(let reason) = phase {
            if case .accessRequested(let request, _, _, _, _) = event {
                return [.perform(.unavailable(request, reason))]
            }
            return []
        }
        if event.changesPredictions { predictionChanges &+= 1 }
        let frame = record(event, now: now)
        switch phase {
        case .connected(let attempt):
            guard let frame, VersionNegotiation.carries(frame, at: agreedVersion) else { return [] }
            return [.send(frame, attempt: attempt)]
        case .idle(let unavailable):
            // The first event starts connecting; after a failed series, only a request does (presenters are
            // registered with the next host anyway).
            guard unavailable == nil || event.isRequest else { return [] }
            if let frame, !event.isDeclared { pendingFrames.append(frame) }
            return startSeries(now: now)
        case .connecting, .handshaking, .waitingToRetry:
            if let frame, !event.isDeclared { pendingFrames.append(frame) }
            return []
        case .failed:
            return []
        }
    }

    /// A thread asks for a snapshot with a new `tag`.
    mutating func snapshotRequested(tag: UInt64, now: Instant) -> [Action] {
        switch phase {
        case .failed(let reason):
            return [.answerSnapshot(tag: tag, .unavailable(reason))]
        case .connected(let attempt):
            snapshotsSent.insert(tag)
            return [.send(.snapshotRequest(tag: tag), attempt: attempt)]
        case .idle:
            snapshotsToSend.append(tag)
            return startSeries(now: now)
        case .connecting, .handshaking, .waitingToRetry:
            snapshotsToSend.append(tag)
            return []
        }
    }

    /// The thread that asked for the snapshot with `tag` stopped waiting: a late answer is dropped.
    mutating func snapshotAbandoned(tag: UInt64) -> [Action] {
        snapshotsToSend.removeAll { $0 == tag }
        snapshotsSent.remove(tag)
        return []
    }

    // MARK: events from the driver

    /// The driver connected for `attempt` and sent hello.
    mutating func connected(attempt: UInt64, now: Instant) -> [Action] {
        guard case .connecting(let current) = phase, current.number == attempt else {
            return [.close(attempt: attempt)]
        }
        phase = .handshaking(current, deadline: now.advanced(byNanoseconds: Self.handshakeTimeout))
        return []
    }

    /// The driver could not connect for `attempt`; `retryable` if another try may succeed soon (a host on its
    /// way out, a socket being replaced).
    mutating func connectFailed(attempt: UInt64, reason: String, retryable: Bool, now: Instant) -> [Action] {
        guard case .connecting(let current) = phase, current.number == attempt else { return [] }
        return attemptFailed(current, reason: reason, retryable: retryable, now: now)
    }

    /// A frame arrived on the connection of `attempt`.
    mutating func frameReceived(_ frame: WireFrame, attempt: UInt64, now: Instant) -> [Action] {
        switch phase {
        case .handshaking(let current, _) where current.number == attempt:
            switch frame {
            case .welcome(let version, _):
                guard current.offer.accepts(welcome: version) else {
                    return [.close(attempt: attempt)]
                        + becomeUnavailable(
                            "the shared arbiter chose protocol version \(version), which this process did not offer "
                                + "(it speaks \(VersionNegotiation.describe(negotiation.supported)))")
                }
                phase = .connected(attempt: attempt)
                agreedVersion = version
                legacyHelloNext = false
                everConnected = true
                return declarations(attempt: attempt, redeclaring: current.redeclaring, now: now)
            case .refused(let reason):
                return [.close(attempt: attempt)] + becomeUnavailable("the shared arbiter refused: \(reason)")
            default:
                return [.close(attempt: attempt)]
                    + becomeUnavailable("the shared arbiter answered hello with \(frame.type)")
            }
        case .connected(let current) where current == attempt:
            guard VersionNegotiation.carries(frame, at: agreedVersion), let actions = dispatch(frame) else {
                return [.close(attempt: attempt)] + hostLost(now: now)
            }
            return actions
        case .idle, .connecting, .handshaking, .waitingToRetry, .connected, .failed:
            // A late frame of a connection already closed.
            return []
        }
    }

    /// The client that ended the access before `request` on the host's hand-over board wrote `request`'s grant
    /// there, and this process took it on the connection of `attempt`: it is granted as by a `grant` frame
    /// (with the paths it asked for: a waiting request has moved nothing), which, if it comes too, changes
    /// nothing.
    mutating func grantedByHandOver(_ request: RequestID, attempt: UInt64) -> [Action] {
        guard case .connected(let current) = phase, current == attempt, let outstanding = requests[request],
            !outstanding.granted
        else { return [] }
        return dispatch(.grant(request, paths: outstanding.intents.map(\.path))) ?? []
    }

    /// Whether ending the granted `request` may hand it over on the host's board: not if this process submitted,
    /// since the grant, an event that changes what the host predicts (a move, a presenter's registration, a
    /// reply, a cancel…), which the host may not have read yet and so predicted without.
    func mayHandOver(_ request: RequestID) -> Bool {
        requests[request]?.changesAtGrant == predictionChanges
    }

    /// The access ended and handed itself over on the host's board: it is forgotten, and no end frame is sent
    /// (the host reads the end on the board).
    mutating func accessEndedByHandOver(_ request: RequestID) -> [Action] {
        requests[request] = nil
        return []
    }

    /// The connection of `attempt` ended (end of stream, a read or write error, a malformed frame).
    mutating func connectionLost(attempt: UInt64, reason: String, now: Instant) -> [Action] {
        switch phase {
        case .handshaking(let current, _) where current.number == attempt:
            // A host from before negotiation closes on a hello with the range; so, by turns, does a dying host.
            legacyHelloNext = current.offer.lowest != nil
            return [.close(attempt: attempt)] + attemptFailed(current, reason: reason, retryable: true, now: now)
        case .connected(let current) where current == attempt:
            return [.close(attempt: attempt)] + hostLost(now: now)
        case .idle, .connecting, .handshaking, .waitingToRetry, .connected, .failed:
            return []
        }
    }

    /// Time passed: a handshake that took too long fails, a pause between attempts ends.
    mutating func timePassed(now: Instant) -> [Action] {
        switch phase {
        case .handshaking(let current, let deadline) where deadline <= now:
            return [.close(attempt: current.number)]
                + attemptFailed(
                    current, reason: "the shared arbiter did not answer hello within 2 seconds", retryable: true,
                    now: now)
        case .waitingToRetry(let current, let retryAt, _) where retryAt <= now:
            let next = Attempt(
                number: takeAttemptNumber(), giveUp: current.giveUp, redeclaring: current.redeclaring,
                offer: negotiation.offer(legacy: legacyHelloNext))
            legacyHelloNext = false
            phase = .connecting(next)
            return [.connect(attempt: next.number, offer: next.offer)]
        case .idle, .connecting, .handshaking, .waitingToRetry, .connected, .failed:
            return []
        }
    }

    // MARK: transitions

    private mutating func takeAttemptNumber() -> UInt64 {
        defer { nextAttempt += 1 }
        return nextAttempt
    }

    private mutating func startSeries(now: Instant) -> [Action] {
        let attempt = Attempt(
            number: takeAttemptNumber(), giveUp: now.advanced(byNanoseconds: Self.patience), redeclaring: everConnected,
            offer: negotiation.offer())
        legacyHelloNext = false
        phase = .connecting(attempt)
        return [.connect(attempt: attempt.number, offer: attempt.offer)]
    }

    private mutating func attemptFailed(_ attempt: Attempt, reason: String, retryable: Bool, now: Instant) -> [Action] {
        guard retryable, now < attempt.giveUp else { return becomeUnavailable(reason) }
        phase = .waitingToRetry(attempt, retryAt: now.advanced(byNanoseconds: Self.retryPause), reason: reason)
        return []
    }

    /// No host: waiting requests and snapshot queries fail; held accesses and presenters stay recorded for
    /// the next host.
    private mutating func becomeUnavailable(_ reason: String) -> [Action] {
        phase = .idle(unavailable: reason)
        var actions: [Action] = []
        for request in requests.filter({ !$0.value.granted }).map(\.key).sorted() {
            requests[request] = nil
            actions.append(.perform(.unavailable(request, reason)))
        }
        for tag in snapshotsToSend + snapshotsSent.sorted() {
            actions.append(.answerSnapshot(tag: tag, .unavailable(reason)))
        }
        snapshotsToSend = []
        snapshotsSent = []
        pendingFrames = []
        return actions
    }

    /// The connected host is gone: cut rounds end with a reacquire, queries go unanswered, a new series starts.
    private mutating func hostLost(now: Instant) -> [Action] {
        var actions: [Action] = relinquished.sorted(by: { $0.key < $1.key }).map { message, presenter in
            .perform(
                .deliver(
                    PresenterDelivery(
                        client: ClientID(0), presenter: presenter, id: MessageID(0),
                        message: .reacquire(relinquishMessage: message), request: RequestID(0))))
        }
        relinquished = [:]
        awaitingReplies = []
        for tag in snapshotsSent.sorted() {
            actions.append(.answerSnapshot(tag: tag, .unavailable("the shared arbiter's host went away")))
        }
        snapshotsSent = []
        return actions + startSeries(now: now)
    }

    /// Everything this process holds, said again to a (new) host, then the queries that waited.
    private mutating func declarations(attempt: UInt64, redeclaring: Bool, now: Instant) -> [Action] {
        var frames: [WireFrame] = []
        if !packageExtensions.isEmpty && agreedVersion >= WireProtocol.packageExtensionsVersion {
            frames.append(.packageExtensions(packageExtensions))
        }
        for (presenter, record) in presenters.sorted(by: { $0.key < $1.key }) {
            frames.append(
                .presenterRegistered(
                    presenter, purpose: record.purpose, path: record.path, observesUncoordinatedChanges: record.observes
                ))
        }
        for (request, outstanding) in requests.sorted(by: { $0.key < $1.key }) {
            frames.append(
                .accessRequested(
                    request, purpose: outstanding.purpose, intents: outstanding.intents,
                    timeout: outstanding.granted ? nil : Self.remaining(until: outstanding.deadline, now: now),
                    nestedIn: outstanding.granted ? nil : outstanding.nestedIn, reclaim: outstanding.granted,
                    age: now.nanoseconds - min(outstanding.submitted.nanoseconds, now.nanoseconds)))
            if outstanding.cancelled && !outstanding.granted { frames.append(.cancelRequested(request)) }
        }
        frames += pendingFrames.filter { VersionNegotiation.carries($0, at: agreedVersion) }
        pendingFrames = []
        if redeclaring { frames.append(.redeclared) }
        for tag in snapshotsToSend {
            snapshotsSent.insert(tag)
            frames.append(.snapshotRequest(tag: tag))
        }
        snapshotsToSend = []
        return frames.map { .send($0, attempt: attempt) }
    }

    /// Records `event` in what this process has declared; the frame to send, or nil for none.
    private mutating func record(_ event: ClientEvent, now: Instant) -> WireFrame? {
        switch event {
        case .presenterRegistered(let presenter, let purpose, let path, let observes):
            presenters[presenter] = PresenterRecord(purpose: purpose, path: path, observes: observes)
            return .presenterRegistered(presenter, purpose: purpose, path: path, observesUncoordinatedChanges: observes)
        case .presenterMoved(let presenter, let path):
            presenters[presenter]?.path = path
            return .presenterMoved(presenter, path: path)
        case .presenterRemoved(let presenter):
            presenters[presenter] = nil
            return .presenterRemoved(presenter)
        case .accessRequested(let request, let purpose, let intents, let deadline, let nestedIn):
            requests[request] = Outstanding(
                purpose: purpose, intents: intents, deadline: deadline, nestedIn: nestedIn, submitted: now)
            return .accessRequested(
                request, purpose: purpose, intents: intents, timeout: Self.remaining(until: deadline, now: now),
                nestedIn: nestedIn, reclaim: false)
        case .accessEnded(let request, let presence):
            requests[request] = nil
            return .accessEnded(request, presence: presence)
        case .itemMoved(let request, let from, let to):
            return .itemMoved(request, from: from, to: to)
        case .cancelRequested(let request):
            requests[request]?.cancelled = true
            return .cancelRequested(request)
        case .presenterReplied(let message, let failure):
            // A reply to a message of a previous host means nothing to this one.
            guard awaitingReplies.remove(message) != nil else { return nil }
            return .presenterReplied(message, failure: failure)
        case .itemVersionsChanged(let path, let notice):
            // A notice is not declared again to a new host: presenters hear of the changes made while it is up.
            return .versionsChanged(path, notice)
        }
    }

    /// The actions for a frame from the connected host; nil for a frame a host must not send.
    private mutating func dispatch(_ frame: WireFrame) -> [Action]? {
        switch frame {
        case .grant(let request, let paths, let reportsPresence):
            // A duplicate grant, or one for a request already failed or ended, changes nothing.
            guard var outstanding = requests[request], !outstanding.granted else { return [] }
            outstanding.granted = true
            outstanding.changesAtGrant = predictionChanges
            for index in outstanding.intents.indices where index < paths.count {
                let intent = outstanding.intents[index]
                outstanding.intents[index] = AccessIntent(
                    path: paths[index], access: intent.access, packageRootDepths: intent.packageRootDepths,
                    includesContents: intent.includesContents)
            }
            requests[request] = outstanding
            return [.perform(.grant(request, paths: paths, reportsPresence: reportsPresence))]
        case .fail(let request, let failure):
            guard let outstanding = requests[request], !outstanding.granted else { return [] }
            requests[request] = nil
            return [.perform(.fail(request, failure))]
        case .deliver(let delivery):
            if delivery.message.expectsReply { awaitingReplies.insert(delivery.id) }
            switch delivery.message {
            case .relinquishToReader, .relinquishToWriter: relinquished[delivery.id] = delivery.presenter
            case .reacquire(let relinquishMessage): relinquished[relinquishMessage] = nil
            default: break
            }
            return [.perform(.deliver(delivery))]
        case .snapshotResponse(let tag, let snapshot):
            guard snapshotsSent.remove(tag) != nil else { return [] }
            return [.answerSnapshot(tag: tag, .snapshot(snapshot))]
        case .handOverBoard(let name, let cell, let generation):
            guard case .connected(let attempt) = phase else { return [] }
            return [.useBoard(attempt: attempt, name: name, cell: cell, generation: generation)]
        case .refused, .hello, .welcome, .presenterRegistered, .presenterMoved, .presenterRemoved, .accessRequested,
            .accessEnded, .itemMoved, .cancelRequested, .presenterReplied, .snapshotRequest, .redeclared,
            .versionsChanged, .packageExtensions:
            return nil
        }
    }

    /// The nanoseconds left at `now` until `deadline` (0 once it passed), or nil for none.
    private static func remaining(until deadline: Instant?, now: Instant) -> UInt64? {
        guard let deadline else { return nil }
        return deadline > now ? deadline.nanoseconds - now.nanoseconds : 0
    }
}

extension ClientEvent {
    /// Whether the host, reading this event after an access of this process ended on the board, could have
    /// predicted that hand-over differently: everything but requests and ends (which it handles in either order).
    var changesPredictions: Bool {
        switch self {
        case .accessRequested, .accessEnded: return false
        case .presenterRegistered, .presenterMoved, .presenterRemoved, .itemMoved, .cancelRequested, .presenterReplied,
            .itemVersionsChanged:
            return true
        }
    }

    /// Whether the event asks for access (and so needs a host now).
    var isRequest: Bool {
        if case .accessRequested = self { return true }
        return false
    }

    /// Whether the event is part of what a session declares again to each new host (presenters, requests and
    /// their cancellation), rather than a one-off message.
    var isDeclared: Bool {
        switch self {
        case .presenterRegistered, .presenterMoved, .presenterRemoved, .accessRequested, .accessEnded,
            .cancelRequested, .presenterReplied:
            return true
        case .itemMoved, .itemVersionsChanged:
            return false
        }
    }
}
