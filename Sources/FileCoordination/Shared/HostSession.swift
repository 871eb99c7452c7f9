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

    /// A session with no clients. `awaiting` lists the predecessor's clients that are still alive (the driver
    /// read them from the client list it left and checked each process): if any, the grace period starts at
    /// `now`. `negotiation` gives the protocol versions it speaks, `maximumOutput` the unsent output allowed.
    init(
        awaiting: Set<Int32> = [], now: Instant, negotiation: VersionNegotiation = .current,
        maximumOutput: Int = defaultMaximumOutput
    ) {
        self.negotiation = negotiation
        self.maximumOutput = maximumOutput
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
            }
        case .accessEnded(let request, let presence):
            guard let id = global(request.rawValue) else { return disconnect(slot, .protocolViolation) }
            perform(arbiter.accessEnded(RequestID(id), from: client, presence: presence))
        case .itemMoved(let request, let from, let to):
            guard let id = global(request.rawValue) else { return disconnect(slot, .protocolViolation) }
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
        case .hello, .welcome, .refused, .grant, .fail, .deliver, .snapshotResponse:
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
                enqueue(
                    .grant(
                        RequestID(request.rawValue & Self.localMask), paths: paths, reportsPresence: reportsPresence),
                    to: client.rawValue)
            case .fail(let request, let client, let failure):
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
