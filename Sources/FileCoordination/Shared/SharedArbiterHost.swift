import QuireSystem
import CoordinationArbiter
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The shared arbiter served to the user's processes over a Unix socket, by one thread of whichever process
/// holds `arbiter.lock` (DESIGN §2.3): the I/O driver of a ``HostSession``.
///
/// One thread does everything: `poll` on the listening socket, a wake pipe and every connection; accept
/// connections (refusing other users'); feed what it reads, what it wrote, hang-ups and the passing of time to the
/// session; and perform its actions: encode the frames into each client's output buffer, write what the sockets
/// take without blocking, close sockets, rewrite the client list. No lock is needed, and one slow or stuck client
/// cannot hold the others up (its output waits in its own buffer). The protocol (handshake, ids, the hand-over's
/// grace period, timers, the output limit) is the session's; the driver adds only the checks that need system
/// calls: the peer's credentials, and whether each client the session awaits is still alive.
///
/// After a host dies, the next one finds its socket still there (a clean shutdown with no other clients
/// removes it) and the pids of its clients in `arbiter.clients`: the session awaits those still alive.
final class SharedArbiterHost: @unchecked Sendable {
    /// The I/O side of one connection.
    private struct Socket {
        /// The connection's socket.
        let descriptor: Int32
        /// The peer's process id.
        let pid: Int32
        /// Encoded frames, written from `outputStart` on.
        var output: [UInt8] = []
        /// The first byte of `output` not written yet.
        var outputStart = 0

        /// Appends the frame's bytes to `output` (the session checked that it encodes).
        mutating func queue(_ frame: WireFrame) {
            try? WireEncoder.encode(frame, appendingTo: &output)
        }
    }

    /// Where the socket, the lock and the client list live.
    private let paths: SharedArbiterPaths
    /// The listening socket.
    private let listener: Int32
    /// Whether the host made the socket file (and removes it when it stops); false for a socket handed over by
    /// the supervisor, whose file and listening socket outlive the host.
    private let ownsSocket: Bool
    /// `arbiter.lock`, held exclusively for the host's life.
    private let lockDescriptor: Int32
    /// `arbiter.clients`, rewritten whenever the session asks.
    private let clientsFile: Int32
    /// The wake pipe's read end, polled with the sockets.
    private let wakeRead: Int32
    /// The wake pipe's write end, for the stop signals' handler.
    private let wakeWrite: Int32
    /// Connections other than the hosting process's own, for the exit handler.
    private let foreignConnections = Atomic<Int>(0)
    /// This process, whose own connection does not keep the socket in place at exit.
    private let ownPID = getpid()
    /// The board's file name once made, for the exit handler (which runs on another thread than the session's).
    private let boardName = Mutex<String?>(nil)

    /// The protocol: everything but the I/O.
    private var session: HostSession
    /// The open connections' sockets by slot.
    private var sockets: [UInt64: Socket] = [:]
    /// The slot of each connection's socket, to find it from `poll`'s results.
    private var descriptorSlots: [Int32: UInt64] = [:]
    /// The descriptors of the current `poll` (reused).
    private var pollSet: [pollfd] = []
    /// Where reads land before they are fed to the session (reused).
    private let readBuffer = ReadBuffer()
    /// What each socket took in this turn's flush, fed to the session after it (reused).
    private var written: [(slot: UInt64, count: Int)] = []
    /// The sockets that failed in this turn's flush (reused).
    private var failedWrites: [UInt64] = []

    /// The hosts running in this process, one per coordination directory (for the exit handler).
    private static let current = Mutex<[SharedArbiterHost]>([])

    /// Binds the socket (or takes `handedOver`, made non-blocking) and reads the predecessor's client list; the
    /// caller holds the lock (its descriptor is kept open, and so held, for the host's life).
    private init(paths: SharedArbiterPaths, lockDescriptor: Int32, handedOver: Int32? = nil)
        throws(FileCoordinationError)
    {
        self.paths = paths
        self.lockDescriptor = lockDescriptor
        ownsSocket = handedOver == nil
        let now = SystemInterface.now()
        var awaited: Set<Int32> = []
        if (try? SocketSystem.status(of: paths.socket)) != nil {
            awaited = Set(
                HostSession.pids(inClientList: SocketSystem.readSmallFile(paths.clients) ?? "")
                    .filter(SocketSystem.processExists))
        }
        session = HostSession(awaiting: awaited, now: now, createsBoard: true)
        do {
            if let handedOver {
                try SocketSystem.makeNonBlocking(handedOver)
                listener = handedOver
            } else {
                listener = try SocketSystem.listen(at: paths.socket)
            }
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
        SocketSystem.replaceContents(of: clientsFile, with: HostSession.clientListContents([]))
    }

    // MARK: starting and stopping

    /// Hosts the arbiter on a new thread of this process, for as long as the process lives; the caller holds
    /// `lockDescriptor`'s exclusive lock. Clients can connect when this returns.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` if the socket cannot be set up.
    static func startInBackground(paths: SharedArbiterPaths, lockDescriptor: Int32) throws(FileCoordinationError) {
        let host = try SharedArbiterHost(paths: paths, lockDescriptor: lockDescriptor)
        current.withLock { $0.append(host) }
        installExitHandler
        do {
            try SystemThread.start(name: "quire.arbiter-host") { host.run() }
        } catch {
            current.withLock { $0.removeAll { $0 === host } }
            host.abandon()
            throw .arbiterUnavailable("cannot start the arbiter host's thread: \(error)")
        }
    }

    /// Hosts the arbiter on this thread until SIGINT or SIGTERM (see ``CoordinationService/hostInForeground(onReady:)``).
    static func hostInForeground(paths: SharedArbiterPaths, handedOver: Int32?, onReady: (URL) -> Void)
        throws(FileCoordinationError)
    {
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
                "the shared arbiter in \(paths.directoryPath) is already hosted by pid \(holder.isEmpty ? "?" : holder)")
        }
        let host = try SharedArbiterHost(paths: paths, lockDescriptor: lock, handedOver: handedOver)
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
        removeBoard()
        // A handed-over socket stays the supervisor's: connections wait in its backlog for the next host.
        if ownsSocket { SocketSystem.shutDown(listener) }
        guard foreignConnections.load(ordering: .acquiring) == 0 else { return }
        if ownsSocket { SocketSystem.unlinkIfPresent(paths.socket) }
        SocketSystem.replaceContents(of: clientsFile, with: "")
    }

    /// Undoes `init` when the host's thread cannot start: the socket goes (nobody would accept on it), and every
    /// descriptor but the lock's, which the caller closes. The client list keeps what `init` wrote.
    private func abandon() {
        removeBoard()
        if ownsSocket { SocketSystem.unlinkIfPresent(paths.socket) }
        for descriptor in [listener, wakeRead, wakeWrite, clientsFile] { SystemCall.close(descriptor) }
    }

    /// Closes everything after a foreground run; the socket stays if clients remain, so that one of them takes
    /// over with a grace period.
    private func shutDown() {
        removeBoard()
        if sockets.values.allSatisfy({ $0.pid == ownPID }) {
            if ownsSocket { SocketSystem.unlinkIfPresent(paths.socket) }
            SocketSystem.replaceContents(of: clientsFile, with: "")
        }
        for socket in sockets.values { SystemCall.close(socket.descriptor) }
        sockets = [:]
        SystemCall.close(listener)
        SystemCall.close(clientsFile)
        SystemCall.close(lockDescriptor)
    }

    /// Unlinks the board's file: clients that mapped it keep their mapping; a client that has not opened it yet
    /// goes without.
    private func removeBoard() {
        if let name = boardName.withLock({ $0 }) { HandOverBoard.remove(named: name, in: paths.directoryPath) }
    }

    // MARK: the loop

    /// Polls and serves until the poll fails or, with `stopOnSignal`, SIGINT or SIGTERM arrives. After it had
    /// something to do, it polls without sleeping for the host's polling window (``CoordinationPolling/host``)
    /// before it sleeps in `poll`: the next frame of a client it just answered (the end of the access it granted,
    /// the next request) usually comes within it, and on a virtual machine a sleeping thread costs 40-50 µs to
    /// wake, more than the round trip.
    private func run(stopOnSignal: Bool = false) {
        var worked = false
        while !(stopOnSignal && StopSignals.received.load(ordering: .acquiring)) {
            timePassed()
            buildPollSet()
            do {
                let timeout = pollTimeout(SystemInterface.now())
                if !(worked && timeout != 0 && SystemCall.pollWithoutSleeping(&pollSet, for: paths.polling.host)) {
                    // About to sleep: a grant written on the board that its waiter has not taken goes as a frame.
                    if session.hasHandedOverGrants {
                        perform(session.handOver(idle: true))
                        flushOutputs()
                        buildPollSet()
                    }
                    try SocketSystem.poll(&pollSet, timeout: timeout)
                }
            } catch {
                return
            }
            worked = pollSet.contains { $0.revents != 0 }
            if pollSet[1].revents != 0 { SocketSystem.drainWakePipe(wakeRead) }
            if pollSet[0].revents & Int16(POLLIN) != 0 { acceptConnections() }
            for entry in pollSet.dropFirst(2) where entry.revents != 0 {
                guard let slot = descriptorSlots[entry.fd] else { continue }
                if entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readFrames(slot) }
            }
            perform(session.handOver())
            flushOutputs()
        }
    }

    /// Tells the session the time, and which of the clients it awaits are gone (their processes no longer exist).
    private func timePassed() {
        let awaited = session.awaitedPIDs
        let exited = awaited.isEmpty ? awaited : awaited.filter { !SocketSystem.processExists($0) }
        perform(session.timePassed(now: SystemInterface.now(), exited: exited))
    }

    /// The listening socket, the wake pipe, then every connection (for output too if it has some unsent).
    private func buildPollSet() {
        pollSet.removeAll(keepingCapacity: true)
        pollSet.append(pollfd(fd: listener, events: Int16(POLLIN), revents: 0))
        pollSet.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
        for socket in sockets.values {
            let wantsOutput = socket.output.count > socket.outputStart
            pollSet.append(
                pollfd(fd: socket.descriptor, events: Int16(POLLIN) | (wantsOutput ? Int16(POLLOUT) : 0), revents: 0))
        }
    }

    /// Milliseconds until the session's next wake-up; -1 if none.
    private func pollTimeout(_ now: Instant) -> Int32 {
        guard let next = session.wakeUp(after: now) else { return -1 }
        guard next > now else { return 0 }
        let milliseconds = (next.nanoseconds - now.nanoseconds + 999_999) / 1_000_000
        return Int32(min(milliseconds, 60_000))
    }

    /// Accepts every pending connection; a peer of another user (or one whose credentials cannot be read) is
    /// refused before it can say anything.
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
                if let bytes = try? WireEncoder.encode(HostSession.refusal(servingUser: SocketSystem.userID)) {
                    bytes.withUnsafeBytes { _ = try? SocketSystem.send(descriptor, $0) }
                }
                SystemCall.close(descriptor)
                continue
            }
            let slot = session.connectionAccepted(pid: credentials.pid)
            sockets[slot] = Socket(descriptor: descriptor, pid: credentials.pid)
            descriptorSlots[descriptor] = slot
            if credentials.pid != ownPID { foreignConnections.wrappingAdd(1, ordering: .relaxed) }
        }
    }

    /// Reads what the slot's socket has and feeds it to the session; the end of the stream or an error is a
    /// hang-up.
    private func readFrames(_ slot: UInt64) {
        guard let descriptor = sockets[slot]?.descriptor else { return }
        while true {
            let count: Int?
            do {
                count = try SocketSystem.read(descriptor, into: readBuffer.bytes)
            } catch {
                return perform(session.hungUp(slot))
            }
            guard let count else { return }
            if count == 0 { return perform(session.hungUp(slot)) }
            let now = SystemInterface.now()
            let actions = session.bytesReceived(
                UnsafeRawBufferPointer(rebasing: readBuffer.bytes[0..<count]), from: slot, now: now)
            perform(actions)
            // The session may have closed it.
            guard sockets[slot]?.descriptor == descriptor, count == readBuffer.bytes.count else { return }
        }
    }

    /// Writes what each socket takes of its client's output, then tells the session what was written and which
    /// sockets failed. (The actions that follow may queue output for others: it goes out on the next turn of the
    /// loop, which does not wait then.)
    private func flushOutputs() {
        written.removeAll(keepingCapacity: true)
        failedWrites.removeAll(keepingCapacity: true)
        for index in sockets.indices {
            // Scalars only: a copy of the socket would keep its buffer shared, so emptying it would copy it.
            let start = sockets.values[index].outputStart
            guard sockets.values[index].output.count > start else { continue }
            let count: Int
            do {
                let descriptor = sockets.values[index].descriptor
                count = try SocketSystem.send(descriptor, sockets.values[index].output, from: start)
            } catch {
                failedWrites.append(sockets.keys[index])
                continue
            }
            sockets.values[index].outputStart += count
            if sockets.values[index].outputStart == sockets.values[index].output.count {
                let small = sockets.values[index].output.capacity <= 1 << 16
                sockets.values[index].output.removeAll(keepingCapacity: small)
                sockets.values[index].outputStart = 0
            }
            if count > 0 {
                written.append((sockets.keys[index], count))
                // A client waiting on the board sleeps on its doorbell, not on its socket.
                if let board = session.board, sockets.keys[index] < HandOverBoard.cells {
                    board.ring(cell: sockets.keys[index])
                }
            }
        }
        for (slot, count) in written { perform(session.outputWritten(count, to: slot)) }
        for slot in failedWrites { perform(session.hungUp(slot)) }
    }

    // MARK: actions

    /// Performs the session's actions, in order.
    private func perform(_ actions: [HostSession.Action]) {
        for action in actions {
            switch action {
            case .send(let frame, let slot):
                sockets[slot]?.queue(frame)
            case .close(let slot, _):
                guard let socket = sockets.removeValue(forKey: slot) else { continue }
                descriptorSlots[socket.descriptor] = nil
                SystemCall.close(socket.descriptor)
                if socket.pid != ownPID { foreignConnections.wrappingSubtract(1, ordering: .relaxed) }
            case .writeClientList(let pids):
                SocketSystem.replaceContents(of: clientsFile, with: HostSession.clientListContents(pids))
            case .createBoard:
                // Without a board (it could not be made) clients are served by frames, as by a host of version 3.
                let board = try? HandOverBoard.create(in: paths.directoryPath, pid: getpid())
                boardName.withLock { $0 = board?.name }
                perform(session.boardCreated(board))
            }
        }
    }
}

/// SIGINT and SIGTERM for a foreground host: the handler records the signal and wakes the host's loop.
enum StopSignals {
    /// Set by the handler.
    static let received = Atomic<Bool>(false)
    /// The write end of the host's wake pipe, for the handler.
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
