import QuireSystem
import CoordinationArbiter
import Foundation
import Synchronization

/// This process's way to the shared arbiter (`QUIRE_COORDINATION_SCOPE=user`): one Unix-socket connection,
/// written by the threads that submit events and read by one thread of its own.
///
/// The connection keeps what the arbiter knows of this process — its presenters and its requests, granted or
/// waiting — so that it can say it all again to a new host. When the host dies (end of stream), the reader
/// thread gives presenters whose round was cut short their reacquirers, connects to the next host (or becomes
/// it), registers the presenters, re-declares held accesses (`reclaim`), submits the waiting requests again
/// with what is left of their timeouts, and sends ``WireFrame/redeclared``. Events submitted meanwhile only
/// update that record. If no host can be had within ``connectionPatience``, waiting requests fail with
/// ``FileCoordinationError/arbiterUnavailable(_:)``; the next request tries again.
final class SharedArbiterConnection: ArbiterEndpoint, @unchecked Sendable {
    /// How long a connection attempt may take, hosting included.
    static let connectionPatience: UInt64 = 2_000_000_000

    private struct Outstanding {
        let purpose: PurposeID
        var intents: [AccessIntent]
        let deadline: Instant?
        let nestedIn: RequestID?
        /// When it was submitted, to keep its place in the queue across a change of host.
        let submitted: Instant
        var granted = false
        var cancelled = false
    }

    private struct PresenterRecord {
        let purpose: PurposeID
        var path: ItemPath?
        let observes: Bool
    }

    private struct State {
        var descriptor: Int32 = -1
        var generation: UInt64 = 0
        var unavailable: String?
        var connecting = false
        var presenters: [PresenterID: PresenterRecord] = [:]
        var requests: [RequestID: Outstanding] = [:]
        var awaitingReplies: Set<MessageID> = []
        var relinquished: [MessageID: PresenterID] = [:]
        var snapshots: [UInt64: SnapshotWaiter] = [:]
        var nextTag: UInt64 = 1
        var buffer: [UInt8] = []
    }

    /// Where the arbiter this connection uses lives.
    let paths: SharedArbiterPaths
    /// Set for a configuration that can never work (an invalid scope): every request fails with it.
    private let permanentFailure: String?
    private let perform: @Sendable (ClientAction) -> Void
    private let state = Mutex(State())
    /// Serializes connection attempts (the reader's recovery and a request's retry).
    private let connectLock = Mutex(())

    /// Makes the connection and tries to connect (hosting the arbiter if nobody does); a failure is kept and
    /// reported to requests, and the next request tries again.
    init(paths: SharedArbiterPaths, perform: @escaping @Sendable (ClientAction) -> Void) {
        self.paths = paths
        self.perform = perform
        self.permanentFailure = nil
        if let reason = establish(redeclaring: false) {
            state.withLock { $0.unavailable = reason }
        }
    }

    /// A connection that never connects: every request fails with `reason`.
    init(failing reason: String, perform: @escaping @Sendable (ClientAction) -> Void) {
        self.paths = SharedArbiterPaths.fromEnvironment()
        self.perform = perform
        self.permanentFailure = reason
        state.withLock { $0.unavailable = reason }
    }

    // MARK: ArbiterEndpoint

    func submit(_ event: ClientEvent) {
        // A request while no host could be had tries to connect again first (rare: checked under the same lock
        // that records the event, so the common path takes one lock).
        let needsHost = state.withLock { state -> Bool in
            if case .accessRequested = event, state.unavailable != nil { return true }
            record(event, &state)
            return false
        }
        guard needsHost, case .accessRequested(let request, _, _, _, _) = event else { return }
        if let reason = reviveIfUnavailable() {
            perform(.unavailable(request, reason))
        } else {
            submit(event)
        }
    }

    /// Records `event` in what this process has declared and sends it if connected.
    private func record(_ event: ClientEvent, _ state: inout State) {
        let frame: WireFrame
        switch event {
        case .presenterRegistered(let presenter, let purpose, let path, let observes):
            state.presenters[presenter] = PresenterRecord(purpose: purpose, path: path, observes: observes)
            frame = .presenterRegistered(presenter, purpose: purpose, path: path, observesUncoordinatedChanges: observes)
        case .presenterMoved(let presenter, let path):
            state.presenters[presenter]?.path = path
            frame = .presenterMoved(presenter, path: path)
        case .presenterRemoved(let presenter):
            state.presenters[presenter] = nil
            frame = .presenterRemoved(presenter)
        case .accessRequested(let request, let purpose, let intents, let deadline, let nestedIn):
            let now = SystemInterface.now()
            state.requests[request] = Outstanding(
                purpose: purpose, intents: intents, deadline: deadline, nestedIn: nestedIn, submitted: now)
            frame = .accessRequested(
                request, purpose: purpose, intents: intents, timeout: Self.remaining(until: deadline, now: now),
                nestedIn: nestedIn, reclaim: false)
        case .accessEnded(let request, let presence):
            state.requests[request] = nil
            frame = .accessEnded(request, presence: presence)
        case .itemMoved(let request, let from, let to):
            frame = .itemMoved(request, from: from, to: to)
        case .cancelRequested(let request):
            state.requests[request]?.cancelled = true
            frame = .cancelRequested(request)
        case .presenterReplied(let message, let failure):
            // A reply to a message of a previous host means nothing to this one.
            guard state.awaitingReplies.remove(message) != nil else { return }
            frame = .presenterReplied(message, failure: failure)
        case .itemVersionsChanged(let path, let notice):
            // A notice is not declared again to a new host: presenters hear of the changes made while it is up.
            frame = .versionsChanged(path, notice)
        }
        send(frame, &state)
    }

    func snapshot() throws(FileCoordinationError) -> WireSnapshot {
        let waiter = SnapshotWaiter()
        let sent = state.withLock { state -> Bool in
            guard state.descriptor >= 0 else { return false }
            let tag = state.nextTag
            state.nextTag += 1
            state.snapshots[tag] = waiter
            send(.snapshotRequest(tag: tag), &state)
            return true
        }
        guard sent else { throw .arbiterUnavailable(state.withLock { $0.unavailable } ?? "not connected to the shared arbiter") }
        guard let snapshot = waiter.wait(seconds: 5) else {
            throw .arbiterUnavailable("the shared arbiter did not answer within 5 seconds")
        }
        return snapshot
    }

    // MARK: connecting

    /// Encodes `frame` and writes it; a write error shuts the socket down, and the reader thread recovers.
    private func send(_ frame: WireFrame, _ state: inout State) {
        guard state.descriptor >= 0 else { return }
        state.buffer.removeAll(keepingCapacity: true)
        do {
            try WireEncoder.encode(frame, appendingTo: &state.buffer)
        } catch {
            return
        }
        let descriptor = state.descriptor
        do {
            try SocketSystem.sendAll(descriptor, state.buffer)
        } catch {
            SocketSystem.shutDown(descriptor)
        }
    }

    /// The nanoseconds left at `now` until `deadline` (0 once it passed), or nil for none.
    private static func remaining(until deadline: Instant?, now: Instant) -> UInt64? {
        guard let deadline else { return nil }
        return deadline > now ? deadline.nanoseconds - now.nanoseconds : 0
    }

    /// Tries to connect again if the last attempt failed; returns the reason if it still fails.
    private func reviveIfUnavailable() -> String? {
        guard state.withLock({ $0.unavailable != nil }) else { return nil }
        if let permanentFailure { return permanentFailure }
        return connectLock.withLock { _ -> String? in
            guard state.withLock({ $0.unavailable != nil }) else { return nil }
            let reason = establish(redeclaring: false)
            state.withLock { $0.unavailable = reason }
            return reason
        }
    }

    /// Connects (or hosts and connects), says hello, declares everything recorded, starts the reader thread.
    /// Returns why it failed, or nil.
    private func establish(redeclaring: Bool) -> String? {
        var descriptor: Int32 = -1
        var decoder = WireDecoder()
        let giveUp = SystemInterface.now().nanoseconds + Self.connectionPatience
        while descriptor < 0 {
            do throws(ConnectionFailure) {
                decoder = WireDecoder()
                let connected = try Self.connectOrHost(paths)
                do throws(ConnectionFailure) {
                    try Self.handshake(connected, &decoder)
                } catch {
                    SystemCall.close(connected)
                    throw error
                }
                descriptor = connected
            } catch {
                switch error {
                case .retry(let reason):
                    // A host that is exiting still accepts connections until its process is gone: try again.
                    if SystemInterface.now().nanoseconds >= giveUp { return reason }
                    SocketSystem.pause(microseconds: 500)
                case .failed(let reason):
                    return reason
                }
            }
        }
        let now = SystemInterface.now()
        let generation = state.withLock { state -> UInt64 in
            state.descriptor = descriptor
            state.generation += 1
            state.unavailable = nil
            state.awaitingReplies = []
            for (presenter, record) in state.presenters.sorted(by: { $0.key < $1.key }) {
                send(.presenterRegistered(
                    presenter, purpose: record.purpose, path: record.path, observesUncoordinatedChanges: record.observes),
                    &state)
            }
            for (request, outstanding) in state.requests.sorted(by: { $0.key < $1.key }) {
                send(.accessRequested(
                    request, purpose: outstanding.purpose, intents: outstanding.intents,
                    timeout: outstanding.granted ? nil : Self.remaining(until: outstanding.deadline, now: now),
                    nestedIn: outstanding.granted ? nil : outstanding.nestedIn, reclaim: outstanding.granted,
                    age: now.nanoseconds - min(outstanding.submitted.nanoseconds, now.nanoseconds)),
                    &state)
                if outstanding.cancelled && !outstanding.granted { send(.cancelRequested(request), &state) }
            }
            if redeclaring { send(.redeclared, &state) }
            return state.generation
        }
        let handedOver = decoder
        let connected = descriptor
        let thread = Thread { [self] in readLoop(connected, generation: generation, decoder: handedOver) }
        thread.name = "quire.arbiter-client"
        thread.start()
        return nil
    }

    /// A connected socket to the shared arbiter; hosts it on a background thread first if nobody does.
    private static func connectOrHost(_ paths: SharedArbiterPaths) throws(ConnectionFailure) -> Int32 {
        do {
            return try connectOrHostOnce(paths)
        } catch {
            guard case .arbiterUnavailable(let reason) = error else { throw .failed("\(error)") }
            throw .failed(reason)
        }
    }

    /// ``connectOrHost(_:)`` with the error as thrown to callers.
    private static func connectOrHostOnce(_ paths: SharedArbiterPaths) throws(FileCoordinationError) -> Int32 {
        try paths.prepareDirectory()
        let giveUp = SystemInterface.now().nanoseconds + connectionPatience
        while true {
            if try paths.checkSocket() {
                do {
                    return try SocketSystem.connect(to: paths.socket)
                } catch where error.errno == ECONNREFUSED || error.errno == ENOENT {
                    // A dead host's socket, or one being replaced: see who holds the lock.
                } catch {
                    throw .arbiterUnavailable("cannot connect to \(paths.socket): \(error)")
                }
            }
            let lock: Int32?
            do {
                lock = try SocketSystem.tryExclusiveLock(paths.lock)
            } catch {
                throw .arbiterUnavailable("cannot open \(paths.lock): \(error)")
            }
            if let lock {
                try SharedArbiterHost.startInBackground(paths: paths, lockDescriptor: lock)
                continue
            }
            guard SystemInterface.now().nanoseconds < giveUp else {
                let holder = (SocketSystem.readSmallFile(paths.lock) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                throw .arbiterUnavailable(
                    "pid \(holder.isEmpty ? "?" : holder) holds \(paths.lock) but does not accept connections on "
                        + "\(paths.socket)")
            }
            // Another process won the lock and is binding the socket: try again very soon.
            SocketSystem.pause(microseconds: 500)
        }
    }

    /// Sends `hello` and waits (at most two seconds) for `welcome`. A connection closed or reset before the
    /// answer is worth another try (a host on its way out); a refusal is not. The caller closes the socket.
    static func handshake(_ descriptor: Int32, _ decoder: inout WireDecoder) throws(ConnectionFailure) {
        let hello: [UInt8]
        do {
            hello = try WireEncoder.encode(
                .hello(version: WireProtocol.version, pid: SocketSystem.processID, commandLine: SocketSystem.commandLine))
            try SocketSystem.sendAll(descriptor, hello)
        } catch {
            throw .retry("hello to the shared arbiter failed: \(error)")
        }
        SocketSystem.setReceiveTimeout(descriptor, seconds: 2)
        defer { SocketSystem.setReceiveTimeout(descriptor, seconds: 0) }
        try readFrame(descriptor, &decoder) { frame throws(ConnectionFailure) in
            switch frame {
            case .welcome: return ()
            case .refused(let reason): throw .failed("the shared arbiter refused: \(reason)")
            default: throw .failed("the shared arbiter answered hello with \(frame.type)")
            }
        }
    }

    /// Reads frames from a blocking socket until `accept` returns a value for one. End of stream, a read error
    /// or a malformed frame is ``ConnectionFailure/retry(_:)``.
    static func readFrame<Value>(
        _ descriptor: Int32, _ decoder: inout WireDecoder,
        _ accept: (WireFrame) throws(ConnectionFailure) -> Value?
    ) throws(ConnectionFailure) -> Value {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            do {
                while let frame = try decoder.next() {
                    if let value = try accept(frame) { return value }
                }
            } catch let error as ConnectionFailure {
                throw error
            } catch {
                throw .retry("the shared arbiter sent a malformed frame: \(error)")
            }
            let count: Int?
            do {
                count = try SocketSystem.read(descriptor, into: &chunk)
            } catch {
                throw .retry("reading from the shared arbiter failed: \(error)")
            }
            guard let count, count > 0 else { throw .retry("the shared arbiter closed the connection") }
            chunk.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    // MARK: reading

    private func readLoop(_ descriptor: Int32, generation: UInt64, decoder: WireDecoder) {
        var decoder = decoder
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        reading: while true {
            while true {
                let frame: WireFrame?
                do {
                    frame = try decoder.next()
                } catch {
                    break reading
                }
                guard let frame else { break }
                if !dispatch(frame) { break reading }
            }
            let count = try? SocketSystem.read(descriptor, into: &chunk)
            guard let count = count ?? nil, count > 0 else { break }
            chunk.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        connectionLost(descriptor, generation: generation)
    }

    /// Handles one frame from the host; false for a frame a host must not send.
    private func dispatch(_ frame: WireFrame) -> Bool {
        switch frame {
        case .grant(let request, let paths, let reportsPresence):
            state.withLock { state in
                guard state.requests[request] != nil else { return }
                state.requests[request]!.granted = true
                for index in state.requests[request]!.intents.indices where index < paths.count {
                    let intent = state.requests[request]!.intents[index]
                    state.requests[request]!.intents[index] = AccessIntent(
                        path: paths[index], access: intent.access, packageRootDepths: intent.packageRootDepths,
                        includesContents: intent.includesContents)
                }
            }
            perform(.grant(request, paths: paths, reportsPresence: reportsPresence))
        case .fail(let request, let failure):
            state.withLock { _ = $0.requests.removeValue(forKey: request) }
            perform(.fail(request, failure))
        case .deliver(let delivery):
            state.withLock { state in
                if delivery.message.expectsReply { state.awaitingReplies.insert(delivery.id) }
                switch delivery.message {
                case .relinquishToReader, .relinquishToWriter: state.relinquished[delivery.id] = delivery.presenter
                case .reacquire(let relinquishMessage): state.relinquished[relinquishMessage] = nil
                default: break
                }
            }
            perform(.deliver(delivery))
        case .snapshotResponse(let tag, let snapshot):
            state.withLock { $0.snapshots.removeValue(forKey: tag) }?.resolve(snapshot)
        case .refused, .hello, .welcome, .presenterRegistered, .presenterMoved, .presenterRemoved, .accessRequested,
            .accessEnded, .itemMoved, .cancelRequested, .presenterReplied, .snapshotRequest, .redeclared, .versionsChanged:
            return false
        }
        return true
    }

    /// The host is gone: reacquire what its rounds left relinquished, then find the next host.
    private func connectionLost(_ descriptor: Int32, generation: UInt64) {
        let cut = state.withLock { state -> [MessageID: PresenterID] in
            guard state.generation == generation else { return [:] }
            state.descriptor = -1
            let cut = state.relinquished
            state.relinquished = [:]
            state.awaitingReplies = []
            for waiter in state.snapshots.values { waiter.resolve(nil) }
            state.snapshots = [:]
            return cut
        }
        SystemCall.close(descriptor)
        for (message, presenter) in cut.sorted(by: { $0.key < $1.key }) {
            perform(.deliver(PresenterDelivery(
                client: ClientID(0), presenter: presenter, id: MessageID(0),
                message: .reacquire(relinquishMessage: message), request: RequestID(0))))
        }
        let reason = connectLock.withLock { _ in establish(redeclaring: true) }
        guard let reason else { return }
        let abandoned = state.withLock { state -> [RequestID] in
            state.unavailable = reason
            let waiting = state.requests.filter { !$0.value.granted }.map(\.key).sorted()
            for request in waiting { state.requests[request] = nil }
            return waiting
        }
        for request in abandoned { perform(.unavailable(request, reason)) }
    }
}

/// Why a connection attempt failed: worth another try until the deadline, or not.
enum ConnectionFailure: Error {
    /// The host went away during the attempt.
    case retry(String)
    /// Nothing will change by trying again soon (an unsafe directory, a refusal).
    case failed(String)
}

/// A thread waiting for a snapshot answer.
final class SnapshotWaiter: Sendable {
    private let result = Mutex<WireSnapshot??>(nil)
    private let semaphore = DispatchSemaphore(value: 0)

    /// Hands over the answer (nil: the connection was lost).
    func resolve(_ snapshot: WireSnapshot?) {
        result.withLock { $0 = .some(snapshot) }
        semaphore.signal()
    }

    /// The answer, or nil if none came within `seconds` or the connection was lost.
    func wait(seconds: Int) -> WireSnapshot? {
        guard semaphore.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
        return result.withLock { $0 } ?? nil
    }
}
