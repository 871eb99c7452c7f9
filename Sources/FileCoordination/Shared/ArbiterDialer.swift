import QuireSystem
import CoordinationArbiter
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reaching the shared arbiter: connecting to its socket, hosting it first when nobody does, and the blocking
/// hello and frame reads of short-lived connections (`quire claims`). Used off the cooperative pool only: by a
/// connection's own thread and by the operator commands.
enum ArbiterDialer {

    /// A connected socket to the shared arbiter; hosts it on a background thread first if nobody does.
    static func connectOrHost(_ paths: SharedArbiterPaths) throws(ConnectionFailure) -> Int32 {
        do {
            return try connectOrHostOnce(paths)
        } catch {
            guard case .arbiterUnavailable(let reason) = error else { throw .failed("\(error)") }
            throw .failed(reason)
        }
    }

    /// ``connectOrHost(_:)`` with the error as thrown to callers.
    static func connectOrHostOnce(_ paths: SharedArbiterPaths) throws(FileCoordinationError) -> Int32 {
        try paths.prepareDirectory()
        let giveUp = SystemInterface.now().nanoseconds + ArbiterSession.patience
        while true {
            if try paths.checkSocket() {
                do {
                    return try SocketSystem.connect(to: paths.socket)
                } catch  where error.errno == ECONNREFUSED || error.errno == ENOENT {
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
                do {
                    try SharedArbiterHost.startInBackground(paths: paths, lockDescriptor: lock)
                } catch {
                    // Not hosting after all: let go of the lock, or no process could host until this one exits.
                    SystemCall.close(lock)
                    throw error
                }
                continue
            }
            guard SystemInterface.now().nanoseconds < giveUp else {
                let holder = (SocketSystem.readSmallFile(paths.lock) ?? "").trimmingCharacters(
                    in: .whitespacesAndNewlines)
                throw .arbiterUnavailable(
                    "pid \(holder.isEmpty ? "?" : holder) holds \(paths.lock) but does not accept connections on "
                        + "\(paths.socket)")
            }
            // Another process won the lock and is binding the socket: try again very soon.
            SocketSystem.pause(microseconds: 500)
        }
    }

    /// Sends the `hello` of `offer` and waits (at most two seconds) for `welcome`. A connection closed or reset
    /// before the answer is worth another try (a host on its way out, or one from before negotiation, which drops
    /// a hello with the range); a refusal is not. The caller closes the socket.
    static func handshake(
        _ descriptor: Int32, _ decoder: inout WireDecoder, offer: VersionNegotiation.Offer
    ) throws(ConnectionFailure) {
        let hello: [UInt8]
        do {
            hello = try WireEncoder.encode(
                offer.hello(pid: SocketSystem.processID, commandLine: SocketSystem.commandLine))
            try SocketSystem.sendAll(descriptor, hello)
        } catch {
            throw .retry("hello to the shared arbiter failed: \(error)")
        }
        SocketSystem.setReceiveTimeout(descriptor, seconds: 2)
        defer { SocketSystem.setReceiveTimeout(descriptor, seconds: 0) }
        try readFrame(descriptor, &decoder) { frame throws(ConnectionFailure) in
            switch frame {
            case .welcome(let version, _):
                guard offer.accepts(welcome: version) else {
                    throw .failed("the shared arbiter chose protocol version \(version), which was not offered")
                }
                return ()
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
        let chunk = ReadBuffer()
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
                count = try SocketSystem.read(descriptor, into: chunk.bytes)
            } catch {
                throw .retry("reading from the shared arbiter failed: \(error)")
            }
            guard let count, count > 0 else { throw .retry("the shared arbiter closed the connection") }
            decoder.append(UnsafeRawBufferPointer(rebasing: chunk.bytes[0..<count]))
        }
    }
}

/// Why a connection attempt failed: worth another try until the deadline, or not.
enum ConnectionFailure: Error {
    /// The host went away during the attempt.
    case retry(String)
    /// Nothing will change by trying again soon (an unsafe directory, a refusal).
    case failed(String)
}
