import QuireSystem
import CoordinationArbiter
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// This process's way to the shared arbiter (scope `user`): the driver of an ``ArbiterSession``.
///
/// One executor, as ``InProcessArbiterHost``: take the lock, feed the event to the session, turn its actions
/// into work (frames are encoded into the output buffer there, so that they leave in the session's order),
/// release the lock, then do the work. No system call is made under the lock, and no thread that submits an
/// event ever waits for the host: connecting, hosting, hello and every read happen on the connection's own
/// thread (`quire.arbiter-client`, started on first use), and a submitter writes only what the socket takes
/// at once (`MSG_DONTWAIT`); the rest waits in the buffer for that thread, which polls for room. A thread that
/// waits for its grant, and so waits for the host anyway, reads the socket itself while nobody else does, and
/// makes the connection itself when the session asks for one nobody has started (``lead(until:)``).
///
/// With a host of protocol version 4 that names a ``HandOverBoard``, the connection maps it (off the lock): a
/// waiting thread watches its cell there beside the socket, and the end of an access the host armed a hand-over
/// for fires it instead of sending `accessEnded` (unless this process reported a move, a presenter change or a
/// cancel during the access, which the host may not have read yet).
final class SharedArbiterConnection: ArbiterEndpoint, @unchecked Sendable {
    private struct State {
        var session: ArbiterSession
        /// The socket of the current attempt, from its connection until the session closes it.
        var socket: (attempt: UInt64, descriptor: Int32)?
        /// Encoded frames for `socket` not written yet.
        var output: [UInt8] = []
        /// An empty buffer with capacity, swapped with `output` by the flushing thread.
        var spare: [UInt8] = []
        /// A thread is writing `output` (outside the lock); others only append.
        var flushing = false
        /// The socket did not take everything: the connection's thread waits for room and writes the rest.
        var outputBlocked = false
        /// Sockets the session closed while a thread was writing to them: closed when it is done.
        var closeAfterFlush: [Int32] = []
        /// An attempt the connection's thread must make.
        var pendingConnect: (attempt: UInt64, offer: VersionNegotiation.Offer)?
        var threadStarted = false
        var snapshots: [UInt64: SnapshotWaiter] = [:]
        var nextTag: UInt64 = 1
        /// One thread reads the socket at a time: the connection's thread, or a thread waiting for its grant
        /// (``lead(until:)``). The holder alone touches ``ReadBuffers``.
        var readerBusy = false
        /// The connection's thread left the socket to a waiting thread and waits for its wake pipe only: the
        /// waiting thread wakes it when it is done.
        var threadParked = false
        /// The host's hand-over board for the connection of `attempt`: mapped once the host named it.
        var board: BoardUse?
    }

    /// The board of one connection, and the connection's cell and generation on it.
    private struct BoardUse {
        let attempt: UInt64
        let board: HandOverBoard
        let cell: UInt64
        let generation: UInt32
    }

    /// The decoder and the read buffer, touched only by the thread that holds `readerBusy`.
    private final class ReadBuffers: @unchecked Sendable {
        /// The attempt whose stream `decoder` holds the rest of.
        var attempt: UInt64 = 0
        var decoder = WireDecoder()
        let chunk = ReadBuffer()
    }

    /// What to do once the lock is released.
    private struct Work {
        var flush = false
        var startThread = false
        var wakeThread = false
        var close: [Int32] = []
        var perform: [ClientAction] = []
        var answers: [(SnapshotWaiter, ArbiterSession.SnapshotAnswer)] = []
        /// A board to map (a file to open, off the lock).
        var openBoard: (attempt: UInt64, name: String, cell: UInt64, generation: UInt32)?
    }

    /// Where the arbiter this connection uses lives.
    let paths: SharedArbiterPaths
    private let perform: @Sendable (ClientAction) -> Void
    private let state: Mutex<State>
    /// Wakes the connection's thread from `poll` (read end, write end); made with the thread.
    private let wakePipe = Mutex<(read: Int32, write: Int32)?>(nil)
    private let buffers = ReadBuffers()

    /// Makes the connection; nothing is connected until the first event needs a host.
    init(paths: SharedArbiterPaths, perform: @escaping @Sendable (ClientAction) -> Void) {
        self.paths = paths
        self.perform = perform
        self.state = Mutex(
            State(session: ArbiterSession(packageExtensions: FileCoordinator.filePackageExtensions.sorted())))
        ExitDrain.register(self)
    }

    /// A connection that never connects: every request fails with `reason`.
    init(failing reason: String, paths: SharedArbiterPaths, perform: @escaping @Sendable (ClientAction) -> Void) {
        self.paths = paths
        self.perform = perform
        self.state = Mutex(State(session: ArbiterSession(permanentFailure: reason)))
    }

    deinit {
        if let pipe = wakePipe.withLock({ $0 }) {
            SystemCall.close(pipe.read)
            SystemCall.close(pipe.write)
        }
    }

    // MARK: ArbiterEndpoint

    func submit(_ event: ClientEvent) {
        if case .accessEnded(let request, _) = event, let use = boardForEnding(request) {
            let firing = use.board.fire(cell: use.cell, generation: use.generation, access: request)
            if firing != .none { HandOverCounts.passedOn.add(1, ordering: .relaxed) }
            if firing == .silent {
                // The next client has the access and waits on the board; the host reads the end there.
                feed { $0.session.accessEndedByHandOver(request) }
                return
            }
        }
        let now = SystemInterface.now()
        feed { $0.session.eventSubmitted(event, now: now) }
    }

    /// The board on which ending `request` may hand it over (``ArbiterSession/mayHandOver(_:)``).
    private func boardForEnding(_ request: RequestID) -> BoardUse? {
        state.withLock { $0.session.mayHandOver(request) ? $0.board : nil }
    }

    func snapshot() throws(FileCoordinationError) -> WireSnapshot {
        let waiter = SnapshotWaiter()
        let now = SystemInterface.now()
        var tag: UInt64 = 0
        feed { state in
            tag = state.nextTag
            state.nextTag += 1
            state.snapshots[tag] = waiter
            return state.session.snapshotRequested(tag: tag, now: now)
        }
        guard let answer = waiter.wait(seconds: 5) else {
            feed { state in
                state.snapshots[tag] = nil
                return state.session.snapshotAbandoned(tag: tag)
            }
            throw .arbiterUnavailable("the shared arbiter did not answer within 5 seconds")
        }
        switch answer {
        case .snapshot(let snapshot): return snapshot
        case .unavailable(let reason): throw .arbiterUnavailable(reason)
        }
    }

    /// Waits, at most until `deadline`, for the events submitted so far to be written: a process that exits
    /// right after an event (a version notice, the end of an access) must not lose it to a connection that was
    /// still being made or a socket that had no room. Called only at exit.
    fileprivate func drain(until deadline: Instant) {
        while SystemInterface.now() < deadline {
            let busy = state.withLock { state in
                state.session.isConnecting || state.pendingConnect != nil
                    || (state.socket != nil && (!state.output.isEmpty || state.flushing))
            }
            guard busy else { return }
            SocketSystem.pause(microseconds: 1000)
        }
    }

    // MARK: the executor

    /// Feeds one event under the lock, then does what its actions ask, outside it.
    private func feed(_ event: (inout State) -> [ArbiterSession.Action]) {
        let work = state.withLock { state -> Work in
            let actions = event(&state)
            return Self.work(for: actions, &state)
        }
        run(work)
    }

    /// Turns actions into state changes and work for after the lock.
    private static func work(for actions: [ArbiterSession.Action], _ state: inout State) -> Work {
        var work = Work()
        for action in actions {
            switch action {
            case .connect(let attempt, let offer):
                state.pendingConnect = (attempt, offer)
                work.wakeThread = true
            case .send(let frame, let attempt):
                guard state.socket?.attempt == attempt else { continue }
                do {
                    try WireEncoder.encode(frame, appendingTo: &state.output)
                } catch {
                    // Only a frame beyond the protocol's limits fails; the host would refuse it anyway.
                    continue
                }
                if !state.flushing && !state.outputBlocked {
                    state.flushing = true
                    work.flush = true
                }
            case .useBoard(let attempt, let name, let cell, let generation):
                guard state.socket?.attempt == attempt else { continue }
                work.openBoard = (attempt, name, cell, generation)
            case .close(let attempt):
                if state.board?.attempt == attempt { state.board = nil }
                guard let socket = state.socket, socket.attempt == attempt else { continue }
                state.socket = nil
                state.output.removeAll(keepingCapacity: true)
                state.outputBlocked = false
                if state.flushing {
                    state.closeAfterFlush.append(socket.descriptor)
                } else {
                    work.close.append(socket.descriptor)
                }
            case .perform(let clientAction):
                work.perform.append(clientAction)
            case .answerSnapshot(let tag, let answer):
                if let waiter = state.snapshots.removeValue(forKey: tag) { work.answers.append((waiter, answer)) }
            }
        }
        // The thread starts with the first attempt; one that could not be started is tried again with the next
        // event, for as long as there is a connection to serve.
        if !state.threadStarted && (state.pendingConnect != nil || state.socket != nil) {
            state.threadStarted = true
            work.startThread = true
        }
        return work
    }

    /// Does the work of one event, in order: sockets closed, thread started or woken, output written, actions
    /// performed, queries answered.
    private func run(_ work: Work) {
        for descriptor in work.close { SystemCall.close(descriptor) }
        if let (attempt, name, cell, generation) = work.openBoard, cell < HandOverBoard.cells,
            let board = try? HandOverBoard.open(named: name, in: paths.directoryPath)
        {
            // Without it (gone already, or not a board), accesses go by frames as with an older host.
            state.withLock { state in
                guard state.socket?.attempt == attempt else { return }
                state.board = BoardUse(attempt: attempt, board: board, cell: cell, generation: generation)
            }
        }
        if work.startThread { startThread() } else if work.wakeThread { wakeThread() }
        if work.flush { flush() }
        for action in work.perform { perform(action) }
        for (waiter, answer) in work.answers { waiter.resolve(answer) }
    }

    /// Writes the output buffer while the socket takes it; called by the thread that took the flushing role.
    /// What the socket does not take now is left for the connection's thread, which waits for room.
    private func flush() {
        while true {
            let taken = state.withLock { state -> (descriptor: Int32, bytes: [UInt8])? in
                guard let socket = state.socket, !state.output.isEmpty, !state.outputBlocked else {
                    state.flushing = false
                    return nil
                }
                let bytes = state.output
                state.output = state.spare
                state.spare = []
                return (socket.descriptor, bytes)
            }
            guard let (descriptor, bytes) = taken else { return closeDeferred() }
            var written = 0
            var failed = false
            bytes.withUnsafeBytes { raw in
                while written < raw.count {
                    do {
                        let count = try SocketSystem.sendWithoutWaiting(
                            descriptor, UnsafeRawBufferPointer(rebasing: raw[written...]))
                        if count == 0 { return }
                        written += count
                    } catch {
                        failed = true
                        return
                    }
                }
            }
            // On failure the connection's thread sees the socket end and reports it to the session.
            if failed { SocketSystem.shutDown(descriptor) }
            let blocked = state.withLock { state -> Bool in
                if !failed && written < bytes.count && state.socket?.descriptor == descriptor {
                    state.output = Array(bytes[written...]) + state.output
                    state.outputBlocked = true
                    state.flushing = false
                    return true
                }
                var spare = bytes
                spare.removeAll(keepingCapacity: true)
                if spare.capacity <= 1 << 16 { state.spare = spare }
                return false
            }
            if blocked {
                wakeThread()
                return closeDeferred()
            }
        }
    }

    /// Closes the sockets the session closed while they were being written, once nobody writes.
    private func closeDeferred() {
        let closing = state.withLock { state -> [Int32] in
            guard !state.flushing, !state.closeAfterFlush.isEmpty else { return [] }
            defer { state.closeAfterFlush = [] }
            return state.closeAfterFlush
        }
        for descriptor in closing { SystemCall.close(descriptor) }
    }

    // MARK: the connection's thread

    private func startThread() {
        if wakePipe.withLock({ $0 }) == nil {
            do {
                let pipe = try SocketSystem.makeWakePipe()
                wakePipe.withLock { $0 = (pipe.0, pipe.1) }
            } catch {
                // Without a wake pipe the thread still runs; it looks again every 10 ms.
            }
        }
        do {
            try SystemThread.start(name: "quire.arbiter-client") { [self] in ioLoop() }
        } catch {
            // No room for a thread now: the next event tries again (``work(for:_:)``). Until then a thread that
            // waits for its grant connects and reads itself (``lead(until:)``).
            state.withLock { $0.threadStarted = false }
        }
    }

    private func wakeThread() {
        guard let pipe = wakePipe.withLock({ $0 }) else { return }
        SocketSystem.wake(pipe.write)
    }

    /// What the connection's thread does next.
    private enum Step {
        case connect(UInt64, VersionNegotiation.Offer)
        case wait(socket: (attempt: UInt64, descriptor: Int32)?, reads: Bool, wantsRoom: Bool, deadline: Instant?)
    }

    /// Connects when the session asks, otherwise waits for frames, room to write, a wake-up or the session's
    /// deadline; reports each to the session. It never ends: a connection lives as long as its process.
    private func ioLoop() {
        var pollSet: [pollfd] = []
        let wake = wakePipe.withLock { $0 }
        while true {
            let step = state.withLock { state -> Step in
                if let (attempt, offer) = state.pendingConnect {
                    state.pendingConnect = nil
                    return .connect(attempt, offer)
                }
                // While a waiting thread reads, this thread leaves the socket to it (it is woken when the
                // waiting thread is done).
                state.threadParked = state.readerBusy && state.socket != nil
                return .wait(
                    socket: state.socket, reads: !state.readerBusy, wantsRoom: state.outputBlocked && !state.flushing,
                    deadline: state.session.deadline)
            }
            switch step {
            case .connect(let attempt, let offer):
                connect(attempt, offer: offer)
            case .wait(let socket, let reads, let wantsRoom, let deadline):
                pollSet.removeAll(keepingCapacity: true)
                if let wake { pollSet.append(pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)) }
                if let socket {
                    let events = (reads ? Int16(POLLIN) : 0) | (wantsRoom ? Int16(POLLOUT) : 0)
                    if events != 0 { pollSet.append(pollfd(fd: socket.descriptor, events: events, revents: 0)) }
                }
                var timeout = Self.pollTimeout(until: deadline, now: SystemInterface.now(), hasWake: wake != nil)
                if !reads && socket != nil {
                    timeout = timeout < 0 ? Self.parkedPatience : min(timeout, Self.parkedPatience)
                }
                do {
                    try SocketSystem.poll(&pollSet, timeout: timeout)
                } catch {
                    SocketSystem.pause(microseconds: 1000)
                }
                if let wake, pollSet[0].revents != 0 { SocketSystem.drainWakePipe(wake.read) }
                if let socket, let entry = pollSet.last, entry.fd == socket.descriptor, entry.revents != 0 {
                    if entry.revents & Int16(POLLOUT) != 0 { writeRest() }
                    if reads && entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 && takeReading(socket) {
                        read(socket, waiting: false)
                        releaseReading()
                    }
                }
                if let deadline, deadline <= SystemInterface.now() {
                    let now = SystemInterface.now()
                    feed { $0.session.timePassed(now: now) }
                }
            }
        }
    }

    /// Milliseconds to wait in `poll` for the session's deadline (-1: none).
    private static func pollTimeout(until deadline: Instant?, now: Instant, hasWake: Bool) -> Int32 {
        guard let deadline else { return hasWake ? -1 : 10 }
        guard deadline > now else { return 0 }
        return Int32(min((deadline.nanoseconds - now.nanoseconds + 999_999) / 1_000_000, 60_000))
    }

    /// Connects (or hosts and connects) and sends the hello of `offer` for `attempt`, then tells the session.
    private func connect(_ attempt: UInt64, offer: VersionNegotiation.Offer) {
        let descriptor: Int32
        do throws(ConnectionFailure) {
            descriptor = try ArbiterDialer.connectOrHost(paths)
            do {
                let hello = try WireEncoder.encode(
                    offer.hello(pid: SocketSystem.processID, commandLine: SocketSystem.commandLine))
                try SocketSystem.sendAll(descriptor, hello)
            } catch {
                SystemCall.close(descriptor)
                throw .retry("hello to the shared arbiter failed: \(error)")
            }
        } catch {
            let now = SystemInterface.now()
            switch error {
            case .retry(let reason):
                feed { $0.session.connectFailed(attempt: attempt, reason: reason, retryable: true, now: now) }
            case .failed(let reason):
                feed { $0.session.connectFailed(attempt: attempt, reason: reason, retryable: false, now: now) }
            }
            return
        }
        let now = SystemInterface.now()
        feed { state in
            state.socket = (attempt, descriptor)
            state.output.removeAll(keepingCapacity: true)
            state.outputBlocked = false
            return state.session.connected(attempt: attempt, now: now)
        }
    }

    /// Reads what arrived on the socket (waiting for it, at most ``leaderPatience``, if `waiting`, and watching
    /// the connection's `board` beside it when there is one) and feeds each frame to the session; end of stream,
    /// an error or a malformed frame ends the connection. The caller holds `readerBusy`.
    private func read(_ socket: (attempt: UInt64, descriptor: Int32), waiting: Bool, board: BoardUse? = nil) {
        if buffers.attempt != socket.attempt {
            buffers.attempt = socket.attempt
            buffers.decoder = WireDecoder()
        }
        // With a board, the wait is on the board and the socket together; the socket is read once readable.
        var readable = false
        if waiting, let use = board {
            guard waitOnBoard(use, socket) else { return }
            readable = true
        }
        let count: Int?
        do {
            count =
                try waiting && !readable
                ? SocketSystem.receiveWaiting(
                    socket.descriptor, into: buffers.chunk.bytes, milliseconds: Self.leaderPatience,
                    spinning: paths.polling.waitingClient)
                : SocketSystem.receiveWithoutWaiting(socket.descriptor, into: buffers.chunk.bytes)
        } catch {
            lost(socket.attempt, "reading from the shared arbiter failed: \(error)")
            return
        }
        guard let count else { return }
        guard count > 0 else {
            lost(socket.attempt, "the shared arbiter closed the connection")
            return
        }
        buffers.decoder.append(UnsafeRawBufferPointer(rebasing: buffers.chunk.bytes[0..<count]))
        while true {
            let frame: WireFrame?
            do {
                frame = try buffers.decoder.next()
            } catch {
                lost(socket.attempt, "the shared arbiter sent a malformed frame: \(error)")
                return
            }
            guard let frame else { return }
            let now = SystemInterface.now()
            feed { $0.session.frameReceived(frame, attempt: socket.attempt, now: now) }
        }
    }

    /// Takes the reader's role for `socket` if nobody holds it and the socket is still the current one.
    private func takeReading(_ socket: (attempt: UInt64, descriptor: Int32)) -> Bool {
        state.withLock { state in
            guard !state.readerBusy, state.socket?.attempt == socket.attempt else { return false }
            state.readerBusy = true
            return true
        }
    }

    /// Gives the reader's role back. The connection's thread, if it left the socket meanwhile, is woken when
    /// frames may come that nobody else will read (presenter messages, answers to other requests); otherwise it
    /// takes the socket back within ``parkedPatience`` by itself, which notices a host's end in time for the
    /// next host's grace period, and spares a wake-up per access.
    private func releaseReading() {
        let wake = state.withLock { state -> Bool in
            state.readerBusy = false
            guard state.threadParked, state.session.expectsFrames || state.outputBlocked else { return false }
            state.threadParked = false
            return true
        }
        if wake { wakeThread() }
    }

    /// How long (milliseconds) the connection's thread leaves the socket to waiting threads before it looks again.
    static let parkedPatience: Int32 = 100

    // MARK: leading

    /// How long a waiting thread reads before it lets the connection's thread look at the socket again.
    static let leaderPatience: Int32 = 50


    /// Reads the socket on the calling thread until `resolved` (its own grant or failure came) or until another
    /// thread reads: the waiting thread is woken by the host's answer itself, not by a reader thread that then
    /// wakes it (leader/follower, as a thread blocked on a channel reads its own reply). Every frame read is
    /// handled as the connection's thread would. A connection the session asked for and nobody has started yet
    /// is made here too (hosting the arbiter first if nobody does), so that a process's first access does not
    /// wait for its connection's thread to be scheduled, nor for that thread to wake it. Returns when not
    /// connected (a retry is pending) or someone else reads; the caller then waits for the reader to resolve it.
    func lead(until resolved: () -> Bool) {
        while !resolved() {
            let step = state.withLock { state -> LeadStep in
                if let (attempt, offer) = state.pendingConnect {
                    state.pendingConnect = nil
                    return .connect(attempt, offer)
                }
                let current: UInt64
                switch state.session.phase {
                case .connected(let attempt): current = attempt
                case .handshaking(let attempt, _): current = attempt.number
                default: return .stop
                }
                guard let socket = state.socket, socket.attempt == current, !state.readerBusy else { return .stop }
                state.readerBusy = true
                return .read(socket, state.board?.attempt == current ? state.board : nil)
            }
            switch step {
            case .connect(let attempt, let offer):
                connect(attempt, offer: offer)
                // The connection's thread polls a set made before the socket existed: it must look again.
                wakeThread()
            case .read(let socket, let board):
                if !resolved() { read(socket, waiting: true, board: board) }
                releaseReading()
            case .stop:
                return
            }
        }
    }

    /// Waits for the socket and, beside it, for a grant another client writes on the board: polls both without
    /// sleeping for the hand-over polling window (``CoordinationPolling/handOver``), then sleeps on the cell's doorbell (rung by that client and by the host for
    /// every frame it sends) for up to ``leaderPatience``. A grant taken is handled at once. Returns true when the
    /// socket is readable, false when the wait is over without it (a grant came, or time is up).
    private func waitOnBoard(_ use: BoardUse, _ socket: (attempt: UInt64, descriptor: Int32)) -> Bool {
        let board = use.board
        let end = ContinuousClock.now + paths.polling.handOver
        var entry = pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)
        var slept = false
        board.setPresence(.spinning, cell: use.cell)
        defer { board.setPresence(.absent, cell: use.cell) }
        while true {
            let tired = ContinuousClock.now >= end
            var seen: UInt32 = 0
            if tired {
                // Said before the last look: whoever writes a grant or a frame after it rings this thread awake.
                board.setPresence(.sleeping, cell: use.cell)
                seen = board.doorbell(cell: use.cell)
            }
            if let request = board.take(cell: use.cell, generation: use.generation) {
                HandOverCounts.received.add(1, ordering: .relaxed)
                feed { $0.session.grantedByHandOver(request, attempt: socket.attempt) }
                return false
            }
            entry.revents = 0
            if poll(&entry, 1, 0) > 0 { return true }
            guard tired else {
                sched_yield()
                continue
            }
            if slept { return false }
            slept = true
            board.sleep(cell: use.cell, seen: seen, milliseconds: Self.leaderPatience)
        }
    }

    /// What a waiting thread does next in ``lead(until:)``.
    private enum LeadStep {
        /// Make the attempt the session asked for, as the connection's thread would: this thread waits anyway.
        case connect(UInt64, VersionNegotiation.Offer)
        /// Read the socket, holding the reader's role (and watch the connection's board, if it has one).
        case read((attempt: UInt64, descriptor: Int32), BoardUse?)
        /// Not connected, or another thread reads: wait to be resolved.
        case stop
    }

    private func lost(_ attempt: UInt64, _ reason: String) {
        let now = SystemInterface.now()
        feed { $0.session.connectionLost(attempt: attempt, reason: reason, now: now) }
    }

    /// The socket has room again: writes what waited, unless a submitter is writing.
    private func writeRest() {
        let takes = state.withLock { state -> Bool in
            guard state.outputBlocked, !state.flushing else { return false }
            state.outputBlocked = false
            state.flushing = true
            return true
        }
        if takes { flush() }
    }
}

/// Writes what the process's connections still hold when it exits (see ``SharedArbiterConnection``).
private enum ExitDrain {
    private struct WeakConnection: @unchecked Sendable {
        weak var connection: SharedArbiterConnection?
    }

    private static let connections = Mutex<[WeakConnection]>([])

    /// Registers, once, the handler that drains every live connection at exit.
    private static let installHandler: Void = {
        atexit { ExitDrain.drainAll() }
    }()

    static func register(_ connection: SharedArbiterConnection) {
        installHandler
        connections.withLock { list in
            list.removeAll { $0.connection == nil }
            list.append(WeakConnection(connection: connection))
        }
    }

    private static func drainAll() {
        let live = connections.withLock { $0.compactMap(\.connection) }
        let deadline = SystemInterface.now().advanced(byNanoseconds: ArbiterSession.patience)
        for connection in live { connection.drain(until: deadline) }
    }
}
