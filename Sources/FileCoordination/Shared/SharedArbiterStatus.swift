import QuireSystem
import CoordinationArbiter
import Foundation

/// Reads the shared arbiter's state for operators, without starting a host when there is none.
enum SharedArbiterStatus {
    /// The status through `client`'s own connection if it has one, else through a connection made for the
    /// question; with no host running, an empty status.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` for an unsafe directory or socket, or a host
    ///   that does not answer.
    static func fetch(paths: SharedArbiterPaths, client: CoordinationClient? = nil) throws(FileCoordinationError)
        -> CoordinationStatus
    {
        if let endpoint = client?.existingEndpoint as? SharedArbiterConnection,
            endpoint.paths.directoryPath == paths.directoryPath, let snapshot = try? endpoint.snapshot()
        {
            return CoordinationStatus(scope: "user", hostPID: hostPID(paths), snapshot: snapshot, now: SystemInterface.now())
        }
        if (try? SocketSystem.status(of: paths.directoryPath)) == nil || (try? SocketSystem.status(of: paths.socket)) == nil {
            return CoordinationStatus(scope: "user", hostPID: nil, presenters: [], claims: [])
        }
        try paths.checkDirectory()
        try paths.checkSocket()
        // A host from before negotiation drops the hello with the range unanswered: ask it again in its layout.
        for offer in [VersionNegotiation.current.offer(), VersionNegotiation.current.offer(legacy: true)] {
            let descriptor: Int32
            do {
                descriptor = try SocketSystem.connect(to: paths.socket)
            } catch where error.errno == ECONNREFUSED || error.errno == ENOENT {
                return CoordinationStatus(scope: "user", hostPID: nil, presenters: [], claims: [])
            } catch {
                throw .arbiterUnavailable("cannot connect to \(paths.socket): \(error)")
            }
            defer { SystemCall.close(descriptor) }
            var decoder = WireDecoder()
            do throws(ConnectionFailure) {
                try ArbiterDialer.handshake(descriptor, &decoder, offer: offer)
                do {
                    try SocketSystem.sendAll(descriptor, try WireEncoder.encode(.snapshotRequest(tag: 1)))
                } catch {
                    throw .failed("asking the shared arbiter failed: \(error)")
                }
                SocketSystem.setReceiveTimeout(descriptor, seconds: 5)
                let snapshot = try ArbiterDialer.readFrame(descriptor, &decoder) {
                    frame throws(ConnectionFailure) -> WireSnapshot? in
                    switch frame {
                    case .snapshotResponse(_, let snapshot): return snapshot
                    case .refused(let reason): throw .failed("the shared arbiter refused: \(reason)")
                    default: return nil
                    }
                }
                return CoordinationStatus(
                    scope: "user", hostPID: hostPID(paths), snapshot: snapshot, now: SystemInterface.now())
            } catch {
                switch error {
                case .retry(let reason) where offer.lowest == nil: throw .arbiterUnavailable(reason)
                case .retry: continue
                case .failed(let reason): throw .arbiterUnavailable(reason)
                }
            }
        }
        throw .arbiterUnavailable("the shared arbiter answered no hello")
    }

    /// The pid written in the lock file by the current host.
    private static func hostPID(_ paths: SharedArbiterPaths) -> Int32? {
        (SocketSystem.readSmallFile(paths.lock) ?? "").split(whereSeparator: \.isNewline).first.flatMap { Int32($0) }
    }
}
