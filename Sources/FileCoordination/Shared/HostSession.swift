import CoordinationArbiter

/// The shared arbiter's host as a pure state machine: the connection table, the handshake, the clients' ids
/// made unique for the ``Arbiter``, the hand-over grace period, the request timers and the output limit.
///
/// Events in, actions out, as ``Arbiter`` and ``ArbiterSession``: no socket, no file, no clock (every event that
/// needs the time brings `now`), no thread, no lock. ``SharedArbiterHost`` is its driver: it accepts connections
/// (``connectionAccepted(pid:)``), feeds what it reads (``bytesReceived(_:from:now:)``), what it wrote
/// (``outputWritten(_:to:)``), hang-ups (``hungUp(_:)``) and the passing of time (``timePassed(now:exited:)``), and
/// performs the actions in order: queue a frame for a slot's socket, close a slot's socket, rewrite the client
/// list. Input a well-behaved client never sends (a malformed frame, a frame before or instead of hello, an id
/// too large, a frame of a later protocol version than the one agreed) closes that client's connection; nothing
/// a client sends can trap.
///
/// Slots: each connection gets a number from 1 up (``connectionAccepted(pid:)``), the client's ``ClientID``. A slot
/// is free again once its ``Action/close(_:_:)`` action is out (the last freed is given out first), so the driver
/// must not feed events of a closed connection after performing that action.
///
/// Ids: each client numbers its requests and presenters itself. The session makes them unique for the arbiter by
/// putting the client's slot above the low ``localBits`` bits, and takes the slot off again in what it sends
/// back; a client that sends a larger number is disconnected.
///
/// Hand-over: a session made with the pids of its predecessor's clients
/// (``init(awaiting:now:negotiation:maximumOutput:)``) is in its grace period until each of those has sent ``WireFrame/redeclared`` or was reported gone
/// (``timePassed(now:exited:)``), or ``gracePeriod`` passed. Meanwhile it accepts registrations and reclaimed
/// accesses but defers new requests and cancels, so that it grants nothing that could conflict with an access
/// still running in a client; at the end it replays them by when each request was first asked for (cancels after
/// the requests), as they queued under the predecessor.
///
/// The board (protocol version 4, ``HandOverBoard``): once two processes of version 4 are connected, the session
/// asks the driver for a board (``Action/createBoard``, answered by ``boardCreated(_:)``) and names it and a cell to
/// each such client. After each of the driver's turns (``handOver(idle:)``) it arms on it the hand-overs its
/// arbiter predicts, catches up with those the clients fired, and sends as frames the grants nobody took. The board
/// is the one thing the session touches besides its own state: atomic operations on shared memory, no system call
/// (a test gives it a board in private memory). Before an event that could change a prediction it takes back what
/// is armed; a request that surely queues behind the last predicted grant, and the end by frame of the access the
/// first link predicted, change none and leave the chain armed.
struct HostSession {
    /// The low bits of a global id that hold the client's own number.
    static let localBits: UInt64 = 40
    /// Masks a global id down to the client's own number.
    static let localMask: UInt64 = (1 << localBits) - 1
    /// The longest the session waits for its predecessor's clients to re-declare what they hold.
    static let gracePeriod: UInt64 = 1_000_000_000
    /// How often, during the grace period, the driver looks again for awaited clients that died.
    static let graceRecheck: UInt64 = 10_000_000
    /// A client whose unsent output would grow beyond this is disconnected (it stopped reading).
    static let defaultMaximumOutput = 64 << 20

    /// Why the session closes a connection.
    enum CloseReason: Equatable, Sendable {
        /// The driver reported the socket ended or failed.
        case hungUp
        /// The handshake was refused and the refusal is written.
        case refused
        /// The client sent something a well-behaved client never sends (the arbiter's ``ArbiterAction/failClient(_:_:)`` included).
        case protocolViolation
        /// The client's unsent output would exceed the limit: it stopped reading.
        case outputLimit
    }

    /// What the driver must do, in order.
    enum Action: Equatable, Sendable {
        /// Queue the frame's bytes on the slot's socket, after what is queued there (the session checked that it
        /// encodes). Report what the socket takes with ``outputWritten(_:to:)``.
        case send(WireFrame, to: UInt64)
        /// Close the slot's socket and drop what is still queued on it; feed nothing more about that connection.
        case close(UInt64, CloseReason)
        /// Replace the client list file's contents with these pids (``clientListContents(_:)``): the clients a
        /// successor must wait for.
        case writeClientList([Int32])
        /// Create the hand-over board (a second process of version 4 connected) and report it with
        /// ``boardCreated(_:)``.
        case createBoard
    }

    /// One client's connection, as far as the protocol goes (its socket is the driver's; its decoder is apart,
    /// so that a copy of this costs nothing).
    private struct Connection {
        /// The peer's process id, from the socket's credentials.
        let pid: Int32
        /// The handshake agreed on a version.
        var welcomed = false
        /// The protocol version agreed in the handshake (0 before it): only its frames are sent.
        var version: UInt16 = 0
        /// It registered a presenter or asked for access: a successor must wait for it to re-declare.
        var declared = false
        /// Refused: its frames are ignored, and it is closed once its output is written.
        var closing = false
        /// The bytes of the frames sent to it that the driver has not reported written.
        var unsent = 0
        /// The generation of its cell on the hand-over board; nil when it does not use the board.
        var handOver: UInt32?
    }

    /// A request or cancel held back during the grace period.
    private enum Deferred: Equatable {
        /// A new request, with when it was first asked for (under the predecessor, perhaps).
        case request(ClientID, RequestID, PurposeID, [AccessIntent], Instant?, RequestID?, firstAsked: UInt64)
        /// A cancel.
        case cancel(ClientID, RequestID)

        /// The client it came from.
        var client: ClientID {
            switch self {
            case .request(let client, _, _, _, _, _, _), .cancel(let client, _): return client
            }
        }

        /// The replay order's key: requests by when they were first asked for, cancels after every request.
        var firstAsked: UInt64 {
            switch self {
            case .request(_, _, _, _, _, _, let firstAsked): return firstAsked
            case .cancel: return .max
            }
        }
    }

    /// The protocol versions this host speaks.
    let negotiation: VersionNegotiation
    /// The most unsent output a client may have before it is disconnected.
    let maximumOutput: Int
    /// Who may access what when, for every client (ids made global: the slot above ``localBits``).
    private var arbiter = Arbiter()
    /// The open connections by slot.
    private var connections: [UInt64: Connection] = [:]
    /// The bytes each open connection received and did not complete into frames yet, by slot.
    private var decoders: [UInt64: WireDecoder] = [:]
    /// Slots given out before and free again, reused last freed first.
    private var freeSlots: [UInt64] = []
    /// The next slot never given out.
    private var nextSlot: UInt64 = 1
    /// The deadline of each waiting request that has one.
    private var timers: [RequestID: Instant] = [:]
    /// When the grace period ends at the latest; nil outside it.
    private(set) var graceDeadline: Instant?
    /// The predecessor's clients not yet re-declared nor gone; empty outside the grace period.
    private(set) var awaitedPIDs: Set<Int32> = []
    /// The requests and cancels held back during the grace period, in arrival order.
    private var deferred: [Deferred] = []
    /// The actions of the event being handled.
    private var actions: [Action] = []

    /// The hand-over board shared with the clients of protocol version 4 (nil: none, or not yet).
    private(set) var board: HandOverBoard?
    /// Whether the driver is to be asked for a board once two processes of version 4 are connected (a lone
    /// process, such as `quire exec` hosting for itself, never needs one).
    private var boardWanted: Bool
    /// The generation last given to each slot's cell.
    private var cellGenerations: [UInt64: UInt32] = [:]
    /// The granted requests that report no presence, in grant order: where a chain of hand-overs can start.
    private var handOverStarts: [RequestID] = []
    /// The armed hand-overs, in the order they follow each other: each link's request is the next one's access.
    private var links: [HandOverLink] = []
    /// The arbiter as it will be once every armed link fired (nil without links).
    private var predicted: Arbiter?
    /// Grants written by fired links that their waiters may not have taken yet, with the paths to send them with.
    private var handedOver: [(link: HandOverLink, paths: [ItemPath])] = []
    /// While a fired link's end is caught up: the request whose grant the board carried, and its paths.
    private var carried: (request: RequestID, paths: [ItemPath]?)?
    /// How many hand-overs the board carried, for the benchmarks and tests.
    private(set) var handOverCount = 0
    /// Counts the moves reported: a waiting request may have followed one, and its client would not know.
    private var moveEpoch: UInt64 = 0
    /// The move epoch when each waiting request of a client with a board was made: only one that no move can
    /// have touched is handed over on the board (its client grants it with the paths it asked for).
    private var requestEpochs: [RequestID: UInt64] = [:]

    /// A session with no clients. `awaiting` lists the predecessor's clients that are still alive (the driver
    /// read them from the client list it left and checked each process): if any, the grace period starts at
    /// `now`. `negotiation` gives the protocol versions it speaks, `maximumOutput` the unsent output allowed.
    init(
        awaiting: Set<Int32> = [], now: Instant, negotiation: VersionNegotiation = .current,
        maximumOutput: Int = defaultMaximumOutput, board: HandOverBoard? = nil, createsBoard: Bool = false
    ) {
        self.negotiation = negotiation
        self.maximumOutput = maximumOutput
        self.board = board
        self.boardWanted = board == nil && createsBoard
        if !awaiting.isEmpty {
            awaitedPIDs = awaiting
            graceDeadline = now.advanced(byNanoseconds: Self.gracePeriod)
        }
    }

    /// Whether new requests and cancels are being deferred for the predecessor's clients.
    var isInGracePeriod: Bool { graceDeadline != nil }

    /// The slots of the open connections, in order (for tests and the driver's checks).
    var openSlots: [UInt64] { connections.keys.sorted() }

    /// When the driver must feed ``timePassed(now:exited:)`` next at the latest, if ever: the earliest request
    /// deadline, and during the grace period every ``graceRecheck`` (to look for awaited clients that died) until
    /// its end.
    func wakeUp(after now: Instant) -> Instant? {
        var next = timers.values.min()
        if let graceDeadline {
            let recheck = Instant(
                nanoseconds: min(
                    graceDeadline.nanoseconds, now.nanoseconds &+ min(Self.graceRecheck, .max - now.nanoseconds)))
            next = min(next ?? recheck, recheck)
        }
        return next
    }

    // MARK: the client list and refusals

    /// The client list file's contents for `pids`: one decimal pid a line.
    static func clientListContents(_ pids: [Int32]) -> String {
        // A loop rather than `joined()`, whose generic witness lookup costs a hosting `quire` 1 % of its run.
        var contents = ""
        for pid in pids {
            contents += String(pid)
            contents += "\n"
        }
        return contents
    }

    /// The pids of a client list file's contents; lines that are not a pid are skipped.
    static func pids(inClientList contents: String) -> [Int32] {
        contents.split(whereSeparator: \.isNewline).compactMap { Int32($0) }
    }

    /// What a peer of another user is sent before its connection is closed, unheard.
    static func refusal(servingUser uid: UInt32) -> WireFrame {
        .refused(reason: "the shared arbiter serves only uid \(uid)")
    }

    // MARK: events

    /// A connection was accepted from process `pid` (of this user): its slot, which names it in every later
    /// event and action. It must say hello first.
    mutating func connectionAccepted(pid: Int32) -> UInt64 {
        let slot: UInt64
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = nextSlot
            nextSlot += 1
        }
        connections[slot] = Connection(pid: pid)
        decoders[slot] = WireDecoder()
        return slot
    }

    /// Bytes were read from the slot's socket: the frames they complete are handled in order. A malformed
    /// stream closes the connection. Bytes for a slot that is not open are ignored.
    mutating func bytesReceived(_ bytes: UnsafeRawBufferPointer, from slot: UInt64, now: Instant) -> [Action] {
        // Nil for a slot that is not open.
        guard decoders[slot]?.append(bytes) != nil else { return [] }
        while true {
            // Nil too once a frame closed the connection.
            let frame: WireFrame?
            do {
                frame = try decoders[slot]?.next()
            } catch {
                disconnect(slot, .protocolViolation)
                break
            }
            guard let frame else { break }
            handle(frame, from: slot, now: now)
        }
        return takeActions()
    }

    /// Bytes were read from the slot's socket (see ``bytesReceived(_:from:now:)``).
    mutating func bytesReceived(_ bytes: [UInt8], from slot: UInt64, now: Instant) -> [Action] {
        bytes.withUnsafeBytes { bytesReceived($0, from: slot, now: now) }
    }

    /// A decoded frame arrived from the slot's client. A frame for a slot that is not open is ignored.
    mutating func frameReceived(_ frame: WireFrame, from slot: UInt64, now: Instant) -> [Action] {
        handle(frame, from: slot, now: now)
        return takeActions()
    }

    /// The slot's socket ended or failed (end of stream, a read or write error): the client is forgotten, what
    /// it held released. Ignored for a slot that is not open.
    mutating func hungUp(_ slot: UInt64) -> [Action] {
        disconnect(slot, .hungUp)
        return takeActions()
    }

    /// The slot's socket took `count` more bytes of what was sent to it. A refused client whose refusal is out
    /// is closed.
    mutating func outputWritten(_ count: Int, to slot: UInt64) -> [Action] {
        guard let connection = connections[slot] else { return [] }
        let left = connection.unsent - min(max(count, 0), connection.unsent)
        connections[slot]?.unsent = left
        if left == 0 && connection.closing { disconnect(slot, .refused) }
        return takeActions()
    }

    /// Time passed: the request deadlines that are due fire; the awaited clients in `exited` (the driver found
    /// their processes gone) are no longer awaited; the grace period ends if nobody is awaited any more or its
    /// time is up, and what it deferred is replayed.
    mutating func timePassed(now: Instant, exited: Set<Int32> = []) -> [Action] {
        if graceDeadline != nil || !exited.isEmpty || timers.values.contains(where: { $0 <= now }) {
            revokeHandOvers()
        }
        fireDueTimers(now)
        if !exited.isEmpty && graceDeadline != nil { awaitedPIDs.subtract(exited) }
        updateGrace(now)
        return takeActions()
    }

    // MARK: frames

    /// Hands the actions of the event over to the driver.
    private mutating func takeActions() -> [Action] {
        guard !actions.isEmpty else { return [] }
        let taken = actions
        actions = []
        return taken
    }

    /// Handles one frame of the slot's client: the handshake first, then the events it reports to the arbiter.
    private mutating func handle(_ frame: WireFrame, from slot: UInt64, now: Instant) {
        guard let connection = connections[slot], !connection.closing else { return }
        let client = ClientID(slot)
        guard connection.welcomed else {
            guard case .hello(let version, _, _, let lowestVersion) = frame else {
                return disconnect(slot, .protocolViolation)
            }
            switch negotiation.answer(version: version, lowestVersion: lowestVersion) {
            case .agreed(let agreed):
                connections[slot]?.welcomed = true
                connections[slot]?.version = agreed
                enqueue(.welcome(version: agreed, clientID: client), to: slot)
                offerBoard(to: slot, version: agreed)
            case .refused(let reason):
                enqueue(.refused(reason: reason), to: slot)
                connections[slot]?.closing = true
                if connections[slot]?.unsent == 0 { disconnect(slot, .refused) }
            }
            return
        }
        // A frame of a later version than the agreed one breaks the protocol.
        guard VersionNegotiation.carries(frame, at: connection.version) else {
            return disconnect(slot, .protocolViolation)
        }
        let high = slot << Self.localBits
        func global(_ local: UInt64) -> UInt64? { local <= Self.localMask ? high | local : nil }
        // Whatever could change what the armed hand-overs predict takes them back first; see each case below for
        // the two that need not.
        switch frame {
        case .accessRequested, .accessEnded: break
        case .snapshotRequest: observeHandOvers()
        default: revokeHandOvers()
        }
        switch frame {
        case .presenterRegistered(let presenter, let purpose, let path, let observes):
            guard let id = global(presenter.rawValue) else { return disconnect(slot, .protocolViolation) }
            markDeclared(slot)
            perform(
                arbiter.presenterRegistered(
                    PresenterID(id), client: client, purpose: purpose, path: path,
                    observesUncoordinatedChanges: observes))
        case .presenterMoved(let presenter, let path):
            guard let id = global(presenter.rawValue) else { return disconnect(slot, .protocolViolation) }
            perform(arbiter.presenterMoved(PresenterID(id), from: client, to: path))
        case .presenterRemoved(let presenter):
            guard let id = global(presenter.rawValue) else { return disconnect(slot, .protocolViolation) }
            perform(arbiter.presenterRemoved(PresenterID(id), from: client))
        case .accessRequested(let request, let purpose, let intents, let timeout, let nestedIn, let reclaim, let age):
            guard let id = global(request.rawValue) else { return disconnect(slot, .protocolViolation) }
            markDeclared(slot)
            let outer = nestedIn.flatMap { global($0.rawValue) }.map(RequestID.init)
            // A request that surely waits behind the last predicted grant changes none of the predictions.
            let keepsHandOvers =
                !reclaim && graceDeadline == nil
                && links.last.map { tail in
                    arbiter.isSurelyBlocked(
                        purpose: purpose, intents: intents, nestedIn: outer, reclaim: reclaim,
                        behind: RequestID(tail.waiter << Self.localBits | tail.request))
                } ?? false
            if !keepsHandOvers { revokeHandOvers() }
            if connection.handOver != nil { requestEpochs[RequestID(id)] = moveEpoch }
            if reclaim {
                perform(
                    arbiter.accessReclaimed(RequestID(id), client: client, purpose: purpose, intents: intents, now: now)
                )
                return
            }
            let deadline = timeout.map {
                Instant(nanoseconds: now.nanoseconds &+ min($0, UInt64.max - now.nanoseconds))
            }
            if graceDeadline != nil {
                let firstAsked = now.nanoseconds - min(age, now.nanoseconds)
                deferred.append(
                    .request(client, RequestID(id), purpose, intents, deadline, outer, firstAsked: firstAsked))
            } else {
                perform(
                    arbiter.accessRequested(
                        RequestID(id), client: client, purpose: purpose, intents: intents, deadline: deadline,
                        nestedIn: outer, now: now))
                if keepsHandOvers {
                    _ = predicted?.accessRequested(
                        RequestID(id), client: client, purpose: purpose, intents: intents, deadline: deadline,
                        nestedIn: outer, now: now)
                }
            }
        case .accessEnded(let request, let presence):
            guard let id = global(request.rawValue) else { return disconnect(slot, .protocolViolation) }
            // The first armed link's access ending by frame (its client looked before it was armed) is what that
            // link predicted: once taken back, the rest of the chain still holds.
            if let head = links.first, head.ender == slot, head.access == request.rawValue, let board,
                board.revoke(head) == .armed
            {
                links.removeFirst()
            } else if arbiter.isActive(RequestID(id)) {
                revokeHandOvers()
            } else {
                // Ended on the board already (its client announced the end as well): nothing changes.
                return
            }
            handOverStarts.removeAll { $0.rawValue == id }
            perform(arbiter.accessEnded(RequestID(id), from: client, presence: presence))
        case .itemMoved(let request, let from, let to):
            guard let id = global(request.rawValue) else { return disconnect(slot, .protocolViolation) }
            moveEpoch &+= 1
            perform(arbiter.itemMoved(RequestID(id), from: client, at: from, to: to))
        case .cancelRequested(let request):
            guard let id = global(request.rawValue) else { return disconnect(slot, .protocolViolation) }
            if graceDeadline != nil {
                deferred.append(.cancel(client, RequestID(id)))
            } else {
                perform(arbiter.cancelRequested(RequestID(id), from: client))
            }
        case .presenterReplied(let message, let failure):
            perform(arbiter.presenterReplied(message, from: client, failure: failure))
        case .versionsChanged(let path, let notice):
            perform(arbiter.itemVersionsChanged(at: path, notice))
        case .snapshotRequest(let tag):
            let snapshot = WireSnapshot(arbiter.snapshot()) { [connections] client in
                connections[client.rawValue]?.pid ?? 0
            }
            enqueue(.snapshotResponse(tag: tag, snapshot), to: slot)
        case .redeclared:
            awaitedPIDs.remove(connection.pid)
            updateGrace(now)
        case .packageExtensions(let extensions):
            perform(arbiter.packageExtensionsDeclared(Set(extensions.map { $0.lowercased() }), by: client))
        case .hello, .welcome, .refused, .grant, .fail, .deliver, .snapshotResponse, .handOverBoard:
            disconnect(slot, .protocolViolation)
        }
    }

    /// Lists a client for a successor's grace period once it has something to re-declare.
    private mutating func markDeclared(_ slot: UInt64) {
        guard connections[slot]?.declared == false else { return }
        connections[slot]?.declared = true
        writeClientList()
    }

    /// Ends the grace period when every awaited client re-declared or died, or time is up; then replays what was
    /// deferred.
    private mutating func updateGrace(_ now: Instant) {
        guard let deadline = graceDeadline else { return }
        guard awaitedPIDs.isEmpty || deadline <= now else { return }
        graceDeadline = nil
        awaitedPIDs = []
        // Requests re-submitted after a hand-over queue by when they were first asked for, as they did before it.
        // The sort is stable: cancels stay behind the requests they cancel.
        let replay = deferred.enumerated().sorted { lhs, rhs in
            (lhs.element.firstAsked, lhs.offset) < (rhs.element.firstAsked, rhs.offset)
        }.map(\.element)
        deferred = []
        for item in replay {
            // A client disconnected by an earlier item's actions takes its deferred work with it.
            guard connections[item.client.rawValue] != nil else { continue }
            switch item {
            case .request(let client, let request, let purpose, let intents, let deadline, let outer, _):
                perform(
                    arbiter.accessRequested(
                        request, client: client, purpose: purpose, intents: intents, deadline: deadline,
                        nestedIn: outer,
                        now: now))
            case .cancel(let client, let request):
                perform(arbiter.cancelRequested(request, from: client))
            }
        }
    }

    /// Fires the request timers whose deadline is due, in request order.
    private mutating func fireDueTimers(_ now: Instant) {
        guard !timers.isEmpty else { return }
        let due = timers.filter { $0.value <= now }.map(\.key).sorted()
        for request in due {
            timers[request] = nil
            perform(arbiter.deadlineReached(request, now: now))
        }
    }

    // MARK: actions

    /// Turns the arbiter's actions into frames for the clients (ids back to the clients' own), timers and
    /// disconnections.
    private mutating func perform(_ arbiterActions: [ArbiterAction]) {
        for action in arbiterActions {
            switch action {
            case .grant(let request, let client, let paths, let reportsPresence):
                if !requestEpochs.isEmpty { requestEpochs[request] = nil }
                if !reportsPresence { handOverStarts.append(request) }
                if request == carried?.request {
                    // The board carried it: it is sent only if its waiter does not take it.
                    carried?.paths = paths
                    continue
                }
                enqueue(
                    .grant(
                        RequestID(request.rawValue & Self.localMask), paths: paths, reportsPresence: reportsPresence),
                    to: client.rawValue)
            case .fail(let request, let client, let failure):
                if !requestEpochs.isEmpty { requestEpochs[request] = nil }
                enqueue(.fail(RequestID(request.rawValue & Self.localMask), failure), to: client.rawValue)
            case .send(let delivery):
                let local = PresenterDelivery(
                    client: delivery.client, presenter: PresenterID(delivery.presenter.rawValue & Self.localMask),
                    id: delivery.id, message: delivery.message,
                    request: RequestID(delivery.request.rawValue & Self.localMask))
                enqueue(.deliver(local), to: delivery.client.rawValue)
            case .startTimer(let request, let deadline):
                timers[request] = deadline
            case .cancelTimer(let request):
                timers[request] = nil
            case .failClient(let client, _):
                disconnect(client.rawValue, .protocolViolation)
            }
        }
    }

    /// Sends `frame` to the client in `slot`, unless the client's protocol version lacks it (a version notice for
    /// a client of version 2: its presenters do not hear of versions); a frame the protocol cannot carry (a
    /// snapshot too large) becomes a refusal that says so. A client whose unsent output would pass the limit is
    /// disconnected instead.
    private mutating func enqueue(_ frame: WireFrame, to slot: UInt64) {
        guard let connection = connections[slot] else { return }
        guard !connection.welcomed || VersionNegotiation.carries(frame, at: connection.version) else { return }
        var frame = frame
        let size: Int
        do {
            size = try WireEncoder.size(of: frame)
        } catch {
            frame = .refused(reason: "the answer is too large for the protocol (\(error))")
            guard let refusalSize = try? WireEncoder.size(of: frame) else { return }
            size = refusalSize
        }
        guard connection.unsent + size <= maximumOutput else { return disconnect(slot, .outputLimit) }
        connections[slot]?.unsent = connection.unsent + size
        actions.append(.send(frame, to: slot))
    }

    /// Forgets a client: closes its connection, drops its deferred events, releases what it held and drops its
    /// presenters (the arbiter's actions for the others follow).
    private mutating func disconnect(_ slot: UInt64, _ reason: CloseReason) {
        guard connections[slot] != nil else { return }
        revokeHandOvers()
        handedOver.removeAll { $0.link.waiter == slot }
        handOverStarts.removeAll { $0.rawValue >> Self.localBits == slot }
        if connections[slot]?.handOver != nil { requestEpochs = requestEpochs.filter { $0.key.rawValue >> Self.localBits != slot } }
        guard let connection = connections.removeValue(forKey: slot) else { return }
        decoders[slot] = nil
        actions.append(.close(slot, reason))
        freeSlots.append(slot)
        let client = ClientID(slot)
        deferred.removeAll { $0.client == client }
        if connection.declared { writeClientList() }
        if connection.welcomed {
            perform(arbiter.clientDisconnected(client))
        }
    }

    /// Records the pids of the clients that declared something, for a successor's grace period.
    private mutating func writeClientList() {
        let pids = Set(connections.values.filter(\.declared).map(\.pid)).sorted()
        actions.append(.writeClientList(pids))
    }
}

// MARK: hand-overs on the board

extension HostSession {
    /// After `welcome` at a version that has the board: gives the slot's cell a new generation and names the
    /// board, unless there is no board, the slot has no cell, or its cell's last client is still firing.
    private mutating func offerBoard(to slot: UInt64, version: UInt16) {
        guard version >= WireProtocol.handOverVersion, slot < HandOverBoard.cells else { return }
        if boardWanted, let pid = connections[slot]?.pid,
            connections.contains(where: { $0.value.version >= WireProtocol.handOverVersion && $0.value.pid != pid })
        {
            boardWanted = false
            actions.append(.createBoard)
        }
        guard let board else { return }
        let generation = ((cellGenerations[slot] ?? 0) &+ 1) & HandOverBoard.generationMask
        cellGenerations[slot] = generation
        guard board.assign(cell: slot, generation: generation) else { return }
        connections[slot]?.handOver = generation
        enqueue(.handOverBoard(name: board.name, cell: slot, generation: generation), to: slot)
    }

    /// The driver created the board it was asked for (nil: it could not; none is asked for again): it is named
    /// to every client of version 4 connected.
    mutating func boardCreated(_ created: HandOverBoard?) -> [Action] {
        guard board == nil, let created else { return [] }
        board = created
        for (slot, connection) in connections.sorted(by: { $0.key < $1.key })
        where connection.welcomed && !connection.closing {
            offerBoard(to: slot, version: connection.version)
        }
        return takeActions()
    }

    /// The driver's turn is over: arms what the arbiter predicts (extending the chain), catches up with the links
    /// that fired, and sends as frames the grants that nobody waits for on the board (all of them when the driver
    /// is about to sleep: `idle`).
    mutating func handOver(idle: Bool = false) -> [Action] {
        guard board != nil else { return [] }
        extendHandOvers()
        observeHandOvers()
        deliverHandedOver(all: idle)
        return takeActions()
    }

    /// Whether grants written on the board may still need sending as frames.
    var hasHandedOverGrants: Bool { !handedOver.isEmpty }

    /// Catches up with the links that fired, in chain order.
    private mutating func observeHandOvers() {
        guard let board else { return }
        while let link = links.first {
            switch board.state(of: link) {
            case .armed:
                return
            case .fired:
                links.removeFirst()
                linkFired(link)
            case .gone:
                // Never fired (only the host rewrites a cell it armed): the predictions after it no longer hold.
                links.removeFirst()
                revokeHandOvers()
            }
        }
        if links.isEmpty { predicted = nil }
    }

    /// Takes every armed link back; those that fired meanwhile are caught up with.
    private mutating func revokeHandOvers() {
        guard let board, !links.isEmpty else { return }
        observeHandOvers()
        let armed = links
        links = []
        predicted = nil
        var revoked = false
        for link in armed {
            // Every link is taken back, or a later grant of its access by frame would fire it. Once one is taken
            // back in time, the accesses after it were never granted, so none of theirs can have fired.
            let state = board.revoke(link)
            if state == .armed {
                revoked = true
            } else if !revoked {
                linkFired(link)
            }
        }
    }

    /// A link fired: its access ended, and its waiter's grant is on the board (sent as a frame only if the
    /// waiter does not take it).
    private mutating func linkFired(_ link: HandOverLink) {
        let access = RequestID(link.ender << Self.localBits | link.access)
        handOverStarts.removeAll { $0 == access }
        handOverCount += 1
        carried = (RequestID(link.waiter << Self.localBits | link.request), nil)
        perform(arbiter.accessEnded(access, from: ClientID(link.ender), presence: []))
        if let paths = carried?.paths { handedOver.append((link, paths)) }
        carried = nil
    }

    /// Sends the grants written on the board whose waiters are not waiting on it (or all, with `all`), unless
    /// they were taken meanwhile.
    private mutating func deliverHandedOver(all: Bool) {
        guard let board, !handedOver.isEmpty else { return }
        var kept: [(link: HandOverLink, paths: [ItemPath])] = []
        for (link, paths) in handedOver {
            guard connections[link.waiter]?.handOver == link.waiterGeneration, board.grantPending(link) else {
                continue
            }
            if !all && board.isWaiting(cell: link.waiter) {
                kept.append((link, paths))
            } else if board.reclaim(link) {
                enqueue(.grant(RequestID(link.request), paths: paths), to: link.waiter)
            }
        }
        handedOver = kept
    }

    /// Arms links from the last predicted grant on (or, without links, from a granted request), as far as the
    /// arbiter predicts that ending each access grants one request and does nothing else.
    private mutating func extendHandOvers() {
        guard graceDeadline == nil, !handOverStarts.isEmpty, arbiter.requestCount > handOverStarts.count else {
            return
        }
        if let tail = links.last {
            guard var state = predicted, state.requestCount > handOverStarts.count else { return }
            appendLinks(from: RequestID(tail.waiter << Self.localBits | tail.request), &state)
            predicted = state
            return
        }
        // Few grants at once: the contended hand-over of one item, not a crowd of readers.
        for start in handOverStarts.prefix(Self.handOverStartLimit) {
            var state = arbiter
            appendLinks(from: start, &state)
            if !links.isEmpty {
                predicted = state
                return
            }
        }
    }

    /// The most granted requests looked at for a new chain.
    static let handOverStartLimit = 4
    /// The most links armed at once.
    static let handOverChainLimit = 8

    /// Arms links from `start` on, playing each end on `state`; stops at an end that would do more than grant
    /// one request (or nothing), at a client without the board, or at a cell already in the chain.
    private mutating func appendLinks(from start: RequestID, _ state: inout Arbiter) {
        guard let board else { return }
        var access = start
        while links.count < Self.handOverChainLimit {
            let ender = access.rawValue >> Self.localBits
            guard let enderGeneration = connections[ender]?.handOver,
                !links.contains(where: { $0.ender == ender })
            else { return }
            let before = state
            var next: (request: RequestID, client: ClientID)?
            var alone = true
            for action in state.accessEnded(access, from: ClientID(ender), presence: []) {
                switch action {
                case .cancelTimer: continue
                case .grant(let request, let client, _, false) where next == nil: next = (request, client)
                default: alone = false
                }
            }
            guard alone, let (request, client) = next, let waiterGeneration = connections[client.rawValue]?.handOver,
                requestEpochs[request] == moveEpoch,
                !links.contains(where: { $0.waiter == client.rawValue }),
                !handedOver.contains(where: { $0.link.waiter == client.rawValue })
            else {
                state = before
                return
            }
            let link = HandOverLink(
                ender: ender, enderGeneration: enderGeneration, access: access.rawValue & Self.localMask,
                waiter: client.rawValue, waiterGeneration: waiterGeneration, request: request.rawValue & Self.localMask)
            guard board.arm(link) else {
                state = before
                return
            }
            links.append(link)
            access = request
        }
    }
}
