import QuireSystem
import CoordinationArbiter
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The shared arbiter served to the user's processes over a Unix socket, by one thread of whichever process
/// holds `arbiter.lock` (DESIGN §2.3).
///
/// One thread does everything: `poll` on the listening socket, a wake pipe and every connection; decode the
/// frames that arrived; feed them to the arbiter; queue the frames its actions address to each client; write
/// what the sockets take without blocking; fire the deadlines that are due. No lock is needed, and one slow or
/// stuck client cannot hold the others up (its output waits in its own buffer).
///
/// Ids: each client numbers its requests and presenters itself. The host makes them unique for the arbiter by
/// putting the client's slot above the low ``localBits`` bits, and takes the slot off again in what it sends
/// back; a client that sends a larger number is disconnected.
///
/// After a host dies, the next one finds its socket still there (a clean shutdown with no other clients
/// removes it) and the pids of its clients in `arbiter.clients`. Until each of those that is still alive has
/// reconnected and sent ``WireFrame/redeclared`` (at most ``gracePeriod``), it accepts registrations and
/// reclaimed accesses but defers new requests and cancels: it grants nothing that could conflict with an
/// access still running in a client.
final class SharedArbiterHost: @unchecked Sendable {
    /// The low bits of a global id that hold the client's own number.
    static let localBits: UInt64 = 40
    /// Masks a global id down to the client's own number.
    static let localMask: UInt64 = (1 << localBits) - 1
    /// The longest the host waits for its predecessor's clients to re-declare what they hold.
    static let gracePeriod: UInt64 = 1_000_000_000
    /// A client whose unsent output grows beyond this is disconnected (it stopped reading).
    static let maximumOutput = 64 << 20

    private struct Connection {
        let descriptor: Int32
        let client: ClientID
        let pid: Int32
        var welcomed = false
        /// The protocol version agreed in the handshake (0 before it): only its frames are sent.
        var version: UInt16 = 0
        /// It registered a presenter or asked for access: a successor must wait for it to re-declare.
        var declared = false
        var closing = false
        var decoder = WireDecoder()
        var output: [UInt8] = []
        var outputStart = 0
    }

    private enum Deferred {
        case request(ClientID, RequestID, PurposeID, [AccessIntent], Instant?, RequestID?, firstAsked: UInt64)
        case cancel(ClientID, RequestID)
    }

    private let paths: SharedArbiterPaths
    private let listener: Int32
    private let lockDescriptor: Int32
    private let clientsFile: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopRequested = Atomic<Bool>(false)
    /// Connections other than the hosting process's own, for the exit handler.
    private let foreignConnections = Atomic<Int>(0)

    private var arbiter = Arbiter()
    private var connections: [UInt64: Connection] = [:]
    /// The slot of each connection's socket, to find it from `poll`'s results.
    private var descriptorSlots: [Int32: UInt64] = [:]
    private var freeSlots: [UInt64] = []
    private var nextSlot: UInt64 = 1
    private var timers: [RequestID: Instant] = [:]
    private var graceDeadline: Instant?
    private var awaitedPIDs: Set<Int32> = []
    private var deferred: [Deferred] = []
    private var pollSet: [pollfd] = []
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)

    /// The hosts running in this process, one per coordination directory (for the exit handler).
    private static let current = Mutex<[SharedArbiterHost]>([])

    /// Binds the socket and reads the predecessor's client list; the caller holds the lock (its descriptor
    /// is kept open, and so held, for the host's life).
    private init(paths: SharedArbiterPaths, lockDescriptor: Int32) throws(FileCoordinationError) {
        self.paths = paths
        self.lockDescriptor = lockDescriptor
        let now = SystemInterface.now()
        let stale = (try? SocketSystem.status(of: paths.socket)) != nil
        if stale {
            let pids = (SocketSystem.readSmallFile(paths.clients) ?? "").split(whereSeparator: \.isNewline)
                .compactMap { Int32($0) }.filter(SocketSystem.processExists)
            if !pids.isEmpty {
                awaitedPIDs = Set(pids)
                graceDeadline = Instant(nanoseconds: now.nanoseconds + Self.gracePeriod)
            }
        }
        do {
            listener = try SocketSystem.listen(at: paths.socket)
        } catch {
            throw .arbiterUnavailable("cannot listen on \(paths.socket): \(error)")
        }
        do {
            (wakeRead, wakeWrite) = try SocketSystem.makeWakePipe()
            clientsFile = try SystemCall.retryingOnInterrupt("open") {
                open(paths.clients, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            }
        } catch {
            SystemCall.close(listener)
            throw .arbiterUnavailable("cannot set up the arbiter host: \(error)")
        }
        SocketSystem.replaceContents(of: lockDescriptor, with: "\(getpid())\n")
        writeClientList()
    }

    // MARK: starting and stopping

    /// Hosts the arbiter on a new thread of this process, for as long as the process lives; the caller holds
    /// `lockDescriptor`'s exclusive lock. Clients can connect when this returns.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` if the socket cannot be set up.
    static func startInBackground(paths: SharedArbiterPaths, lockDescriptor: Int32) throws(FileCoordinationError) {
        let host = try SharedArbiterHost(paths: paths, lockDescriptor: lockDescriptor)
        current.withLock { $0.append(host) }
        installExitHandler
        let thread = Thread { host.run() }
        thread.name = "quire.arbiter-host"
        thread.start()
    }

    /// Hosts the arbiter on this thread until SIGINT or SIGTERM (see ``CoordinationService/hostInForeground(onReady:)``).
    static func hostInForeground(paths: SharedArbiterPaths, onReady: (URL) -> Void) throws(FileCoordinationError) {
        try paths.prepareDirectory()
        let lock: Int32?
        do {
            lock = try SocketSystem.tryExclusiveLock(paths.lock)
        } catch {
            throw .arbiterUnavailable("cannot open \(paths.lock): \(error)")
        }
        guard let lock else {
            let holder = (SocketSystem.readSmallFile(paths.lock) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            throw .arbiterUnavailable(
                "the shared arbiter in \(paths.directory.path) is already hosted by pid \(holder.isEmpty ? "?" : holder)")
        }
        let host = try SharedArbiterHost(paths: paths, lockDescriptor: lock)
        current.withLock { $0.append(host) }
        installExitHandler
        StopSignals.install(wake: host.wakeWrite)
        onReady(URL(fileURLWithPath: paths.socket))
        host.run(stopOnSignal: true)
        host.shutDown()
        current.withLock { $0.removeAll { $0 === host } }
    }

    /// Registers, once, the handler that removes the socket of a host whose process exits with no other
    /// clients (so that the next host knows there is nothing to reclaim).
    private static let installExitHandler: Void = {
        atexit {
            for host in SharedArbiterHost.current.withLock({ $0 }) { host.removeSocketIfUnused() }
        }
    }()

    /// Stops accepting connections (a client connecting now would be reset as the process goes), and removes
    /// the socket and the client list if no other process is connected.
    private func removeSocketIfUnused() {
        SocketSystem.shutDown(listener)
        guard foreignConnections.load(ordering: .acquiring) == 0 else { return }
        SocketSystem.unlinkIfPresent(paths.socket)
        SocketSystem.replaceContents(of: clientsFile, with: "")
    }

    /// Closes everything after a foreground run; the socket stays if clients remain, so that one of them takes
    /// over with a grace period.
    private func shutDown() {
        if connections.values.allSatisfy({ $0.pid == getpid() }) {
            SocketSystem.unlinkIfPresent(paths.socket)
            SocketSystem.replaceContents(of: clientsFile, with: "")
        }
        for connection in connections.values { SystemCall.close(connection.descriptor) }
        connections = [:]
        SystemCall.close(listener)
        SystemCall.close(clientsFile)
        SystemCall.close(lockDescriptor)
    }

    // MARK: the loop

    private func run(stopOnSignal: Bool = false) {
        while !(stopOnSignal && StopSignals.received.load(ordering: .acquiring)) {
            let now = SystemInterface.now()
            fireDueTimers(now)
            updateGrace(now)
            buildPollSet()
            do {
                try SocketSystem.poll(&pollSet, timeout: pollTimeout(SystemInterface.now()))
            } catch {
                return
            }
            if pollSet[1].revents != 0 { SocketSystem.drainWakePipe(wakeRead) }
            if pollSet[0].revents & Int16(POLLIN) != 0 { acceptConnections() }
            for entry in pollSet.dropFirst(2) where entry.revents != 0 {
                guard let slot = descriptorSlots[entry.fd] else { continue }
                if entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readFrames(slot) }
            }
            flushOutputs()
        }
    }

    private func buildPollSet() {
        pollSet.removeAll(keepingCapacity: true)
        pollSet.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
        pollSet.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
        for connection in connections.values {
            let wantsOutput = connection.output.count > connection.outputStart
            pollSet.append(
                pollfd(fd: connection.descriptor, events: Int16(POLLIN) | (wantsOutput ? Int16(POLLOUT) : 0), revents: 0))
        }
    }

    /// Milliseconds until the next deadline or the end of the grace period; -1 if none.
    private func pollTimeout(_ now: Instant) -> Int32 {
        var next = timers.values.min()
        if let graceDeadline {
            // Look again every 10 ms for awaited clients that died meanwhile.
            let recheck = Instant(nanoseconds: min(graceDeadline.nanoseconds, now.nanoseconds + 10_000_000))
            next = min(next ?? recheck, recheck)
        }
        guard let next else { return -1 }
        guard next > now else { return 0 }
        let milliseconds = (next.nanoseconds - now.nanoseconds + 999_999) / 1_000_000
        return Int32(min(milliseconds, 60_000))
    }

    private func acceptConnections() {
        while true {
            let accepted: Int32?
            do {
                accepted = try SocketSystem.accept(listener)
            } catch {
                return
            }
            guard let descriptor = accepted else { return }
            guard let credentials = try? SocketSystem.peerCredentials(of: descriptor),
                credentials.uid == SocketSystem.userID
            else {
                // Another user (or an unknown peer): refused before it can say anything.
                if let bytes = try? WireEncoder.encode(.refused(reason: "the shared arbiter serves only uid \(SocketSystem.userID)")) {
                    bytes.withUnsafeBytes { _ = try? SocketSystem.send(descriptor, $0) }
                }
                SystemCall.close(descriptor)
                continue
            }
            let slot: UInt64
            if let free = freeSlots.popLast() {
                slot = free
            } else {
                slot = nextSlot
                nextSlot += 1
            }
            connections[slot] = Connection(descriptor: descriptor, client: ClientID(slot), pid: credentials.pid)
            descriptorSlots[descriptor] = slot
            if credentials.pid != getpid() { foreignConnections.wrappingAdd(1, ordering: .relaxed) }
        }
    }

    private func readFrames(_ slot: UInt64) {
        guard let descriptor = connections[slot]?.descriptor else { return }
        while true {
            let count: Int?
            do {
                count = try SocketSystem.read(descriptor, into: &readBuffer)
            } catch {
                disconnect(slot)
                return
            }
            guard let count else { break }
            if count == 0 {
                disconnect(slot)
                return
            }
            readBuffer.withUnsafeBytes { raw in
                connections[slot]?.decoder.append(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
            }
            if count < readBuffer.count { break }
        }
        while connections[slot] != nil {
            let frame: WireFrame?
            do {
                frame = try connections[slot]?.decoder.next()
            } catch {
                disconnect(slot)
                return
            }
            guard let frame else { return }
            handle(frame, from: slot)
        }
    }

    // MARK: frames

    private func handle(_ frame: WireFrame, from slot: UInt64) {
        guard let connection = connections[slot] else { return }
        let client = connection.client
        guard connection.welcomed else {
            guard case .hello(let version, _, _, let lowestVersion) = frame else { return disconnect(slot) }
            switch VersionNegotiation.current.answer(version: version, lowestVersion: lowestVersion) {
            case .agreed(let agreed):
                connections[slot]?.welcomed = true
                connections[slot]?.version = agreed
                enqueue(.welcome(version: agreed, clientID: client), to: slot)
            case .refused(let reason):
                enqueue(.refused(reason: reason), to: slot)
                connections[slot]?.closing = true
            }
            return
        }
        // A frame of a later version than the agreed one breaks the protocol.
        guard VersionNegotiation.carries(frame, at: connection.version) else { return disconnect(slot) }
        let now = SystemInterface.now()
        let high = slot << Self.localBits
        func global(_ local: UInt64) -> UInt64? { local <= Self.localMask ? high | local : nil }
        switch frame {
        case .presenterRegistered(let presenter, let purpose, let path, let observes):
            guard let id = global(presenter.rawValue) else { return disconnect(slot) }
            markDeclared(slot)
            perform(arbiter.presenterRegistered(
                PresenterID(id), client: client, purpose: purpose, path: path, observesUncoordinatedChanges: observes))
        case .presenterMoved(let presenter, let path):
            guard let id = global(presenter.rawValue) else { return disconnect(slot) }
            perform(arbiter.presenterMoved(PresenterID(id), from: client, to: path))
        case .presenterRemoved(let presenter):
            guard let id = global(presenter.rawValue) else { return disconnect(slot) }
            perform(arbiter.presenterRemoved(PresenterID(id), from: client))
        case .accessRequested(let request, let purpose, let intents, let timeout, let nestedIn, let reclaim, let age):
            guard let id = global(request.rawValue) else { return disconnect(slot) }
            markDeclared(slot)
            let outer = nestedIn.flatMap { global($0.rawValue) }.map(RequestID.init)
            if reclaim {
                perform(arbiter.accessReclaimed(RequestID(id), client: client, purpose: purpose, intents: intents, now: now))
                return
            }
            let deadline = timeout.map { Instant(nanoseconds: now.nanoseconds &+ min($0, UInt64.max - now.nanoseconds)) }
            if graceDeadline != nil {
                let firstAsked = now.nanoseconds - min(age, now.nanoseconds)
                deferred.append(.request(client, RequestID(id), purpose, intents, deadline, outer, firstAsked: firstAsked))
            } else {
                perform(arbiter.accessRequested(
                    RequestID(id), client: client, purpose: purpose, intents: intents, deadline: deadline,
                    nestedIn: outer, now: now))
            }
        case .accessEnded(let request, let presence):
            guard let id = global(request.rawValue) else { return disconnect(slot) }
            perform(arbiter.accessEnded(RequestID(id), from: client, presence: presence))
        case .itemMoved(let request, let from, let to):
            guard let id = global(request.rawValue) else { return disconnect(slot) }
            perform(arbiter.itemMoved(RequestID(id), from: client, at: from, to: to))
        case .cancelRequested(let request):
            guard let id = global(request.rawValue) else { return disconnect(slot) }
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
            disconnect(slot)
        }
    }

    /// Lists a client for a successor's grace period once it has something to re-declare.
    private func markDeclared(_ slot: UInt64) {
        guard connections[slot]?.declared == false else { return }
        connections[slot]?.declared = true
        writeClientList()
    }

    /// Ends the grace period when every awaited client re-declared, died, or time is up; then replays what
    /// was deferred, in arrival order.
    private func updateGrace(_ now: Instant) {
        guard let deadline = graceDeadline else { return }
        awaitedPIDs = awaitedPIDs.filter(SocketSystem.processExists)
        guard awaitedPIDs.isEmpty || deadline <= now else { return }
        graceDeadline = nil
        awaitedPIDs = []
        // Requests re-submitted after a hand-over queue by when they were first asked for, as they did before it.
        // The sort is stable: cancels stay behind the requests they cancel.
        var replay = deferred
        deferred = []
        func firstAsked(_ item: Deferred) -> UInt64 {
            switch item {
            case .request(_, _, _, _, _, _, let firstAsked): return firstAsked
            case .cancel: return .max
            }
        }
        replay = replay.enumerated().sorted { lhs, rhs in
            (firstAsked(lhs.element), lhs.offset) < (firstAsked(rhs.element), rhs.offset)
        }.map(\.element)
        for item in replay {
            switch item {
            case .request(let client, let request, let purpose, let intents, let deadline, let outer, _):
                guard connections[client.rawValue] != nil else { continue }
                perform(arbiter.accessRequested(
                    request, client: client, purpose: purpose, intents: intents, deadline: deadline, nestedIn: outer,
                    now: SystemInterface.now()))
            case .cancel(let client, let request):
                guard connections[client.rawValue] != nil else { continue }
                perform(arbiter.cancelRequested(request, from: client))
            }
        }
    }

    private func fireDueTimers(_ now: Instant) {
        guard !timers.isEmpty else { return }
        let due = timers.filter { $0.value <= now }.map(\.key).sorted()
        for request in due {
            timers[request] = nil
            perform(arbiter.deadlineReached(request, now: now))
        }
    }

    // MARK: actions

    private func perform(_ actions: [ArbiterAction]) {
        for action in actions {
            switch action {
            case .grant(let request, let client, let paths, let reportsPresence):
                enqueue(
                    .grant(RequestID(request.rawValue & Self.localMask), paths: paths, reportsPresence: reportsPresence),
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
                disconnect(client.rawValue)
            }
        }
    }

    /// Queues `frame` for the client in `slot`, unless the client's protocol version lacks it (a version notice
    /// for a client of version 2: its presenters do not hear of versions).
    private func enqueue(_ frame: WireFrame, to slot: UInt64) {
        // Scalars only: a copy of the connection would share its output buffer, so appending to it would copy it.
        guard let welcomed = connections[slot]?.welcomed, let version = connections[slot]?.version else { return }
        guard !welcomed || VersionNegotiation.carries(frame, at: version) else { return }
        do {
            try WireEncoder.encode(frame, appendingTo: &connections[slot]!.output)
        } catch {
            // Only a snapshot can be too large: say so instead.
            try? WireEncoder.encode(
                .refused(reason: "the answer is too large for the protocol (\(error))"),
                appendingTo: &connections[slot]!.output)
        }
        if connections[slot]!.output.count - connections[slot]!.outputStart > Self.maximumOutput { disconnect(slot) }
    }

    /// Writes what each socket takes of its client's output; then drops the clients whose socket failed or
    /// that were refused and have nothing left to send. (Their disconnection may queue output for others:
    /// it goes out on the next turn of the loop, which does not wait then.)
    private func flushOutputs() {
        var dropped: [UInt64] = []
        for index in connections.indices {
            // Scalars only: a copy of the connection would keep its buffer shared, so emptying it would copy it.
            let descriptor = connections.values[index].descriptor
            let start = connections.values[index].outputStart
            if connections.values[index].output.count > start {
                do {
                    let written = try SocketSystem.send(descriptor, connections.values[index].output, from: start)
                    connections.values[index].outputStart += written
                } catch {
                    dropped.append(connections.keys[index])
                    continue
                }
                if connections.values[index].outputStart == connections.values[index].output.count {
                    let small = connections.values[index].output.capacity <= 1 << 16
                    connections.values[index].output.removeAll(keepingCapacity: small)
                    connections.values[index].outputStart = 0
                }
            }
            if connections.values[index].closing && connections.values[index].output.isEmpty {
                dropped.append(connections.keys[index])
            }
        }
        for slot in dropped { disconnect(slot) }
    }

    /// Forgets a client: closes its socket, releases what it held, drops its presenters and deferred events.
    private func disconnect(_ slot: UInt64) {
        guard let connection = connections.removeValue(forKey: slot) else { return }
        descriptorSlots[connection.descriptor] = nil
        SystemCall.close(connection.descriptor)
        if connection.pid != getpid() { foreignConnections.wrappingSubtract(1, ordering: .relaxed) }
        freeSlots.append(slot)
        deferred.removeAll {
            switch $0 {
            case .request(let client, _, _, _, _, _, _), .cancel(let client, _): return client == connection.client
            }
        }
        if connection.declared { writeClientList() }
        if connection.welcomed {
            perform(arbiter.clientDisconnected(connection.client))
        }
    }

    /// Records the pids of the welcomed clients for a successor's grace period.
    private func writeClientList() {
        let pids = Set(connections.values.filter(\.declared).map(\.pid)).sorted()
        SocketSystem.replaceContents(of: clientsFile, with: pids.map { "\($0)\n" }.joined())
    }
}

/// SIGINT and SIGTERM for a foreground host: the handler records the signal and wakes the host's loop.
enum StopSignals {
    /// Set by the handler.
    static let received = Atomic<Bool>(false)
    nonisolated(unsafe) private static var wakeDescriptor: Int32 = -1

    /// Installs the handler; `wake` is the write end of the host's wake pipe.
    static func install(wake: Int32) {
        wakeDescriptor = wake
        received.store(false, ordering: .releasing)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            StopSignals.received.store(true, ordering: .releasing)
            SocketSystem.wake(StopSignals.wakeDescriptor)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have started this process with them blocked (test runners do): unblock them here.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
    }
}
