import CoordinationArbiter
import Foundation

/// Reads the shared arbiter's state for operators, without starting a host when there is none.
enum SharedArbiterStatus {
    /// The status through this process's own connection if it has one, else through a connection made for
    /// the question; with no host running, an empty status.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` for an unsafe directory or socket, or a host
    ///   that does not answer.
    static func fetch(paths: SharedArbiterPaths) throws(FileCoordinationError) -> CoordinationStatus {
        if let endpoint = CoordinationClient.shared.existingEndpoint as? SharedArbiterConnection,
            let snapshot = try? endpoint.snapshot()
        {
            return CoordinationStatus(scope: "user", hostPID: hostPID(paths), snapshot: snapshot, now: SystemInterface.now())
        }
        if (try? SocketSystem.status(of: paths.directory.path)) == nil || (try? SocketSystem.status(of: paths.socket)) == nil {
            return CoordinationStatus(scope: "user", hostPID: nil, presenters: [], claims: [])
        }
        try paths.checkDirectory()
        try paths.checkSocket()
        let descriptor: Int32
        do {
            descriptor = try SocketSystem.connect(to: paths.socket)
        } catch where error.errno == ECONNREFUSED || error.errno == ENOENT {
            return CoordinationStatus(scope: "user", hostPID: nil, presenters: [], claims: [])
        } catch {
            throw .arbiterUnavailable("cannot connect to \(paths.socket): \(error)")
        }
        defer { SocketSystem.close(descriptor) }
        do {
            var bytes = try WireEncoder.encode(
                .hello(version: WireProtocol.version, pid: SocketSystem.processID, commandLine: SocketSystem.commandLine))
            try WireEncoder.encode(.snapshotRequest(tag: 1), appendingTo: &bytes)
            try SocketSystem.sendAll(descriptor, bytes)
            SocketSystem.setReceiveTimeout(descriptor, seconds: 5)
            var decoder = WireDecoder()
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                while let frame = try decoder.next() {
                    switch frame {
                    case .snapshotResponse(_, let snapshot):
                        return CoordinationStatus(
                            scope: "user", hostPID: hostPID(paths), snapshot: snapshot, now: SystemInterface.now())
                    case .refused(let reason):
                        throw FileCoordinationError.arbiterUnavailable("the shared arbiter refused: \(reason)")
                    default:
                        continue
                    }
                }
                let count = try SocketSystem.read(descriptor, into: &chunk)
                guard let count, count > 0 else {
                    throw FileCoordinationError.arbiterUnavailable("the shared arbiter did not answer")
                }
                chunk.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            }
        } catch let error as FileCoordinationError {
            throw error
        } catch {
            throw .arbiterUnavailable("asking the shared arbiter failed: \(error)")
        }
    }

    /// The pid written in the lock file by the current host.
    private static func hostPID(_ paths: SharedArbiterPaths) -> Int32? {
        (SocketSystem.readSmallFile(paths.lock) ?? "").split(whereSeparator: \.isNewline).first.flatMap { Int32($0) }
    }
}
