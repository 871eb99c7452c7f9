import Foundation

/// Where the shared arbiter lives: a private directory holding its socket, its lock file and the list of
/// its clients (read by the next host after a crash).
struct SharedArbiterPaths: Sendable {
    /// The directory (mode 0700, owned by the user).
    let directory: URL
    /// The directory's path.
    let directoryPath: String
    /// The arbiter's Unix socket (mode 0600).
    let socket: String
    /// The lock file: whoever holds an exclusive `flock` on it hosts the arbiter; it contains the host's pid.
    let lock: String
    /// The pids of the host's clients, one per line, for the next host's grace period.
    let clients: String
    /// How long the threads that wait on these paths (a waiting client's, the host's) poll before they sleep: it
    /// travels with the paths to every connection and host made from them.
    let polling: CoordinationPolling

    /// The paths in `directory`, worked out once (each `URL` operation costs a command's start-up a little).
    init(directory: URL, polling: CoordinationPolling = .default) {
        self.directory = directory
        self.polling = polling
        directoryPath = directory.path
        socket = directory.appendingPathComponent("arbiter.sock").path
        lock = directory.appendingPathComponent("arbiter.lock").path
        clients = directory.appendingPathComponent("arbiter.clients").path
    }

    /// Creates the directory (0700) if it is missing, then checks that it is a real directory (not a symlink)
    /// owned by this user and closed to everyone else.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` naming the path and the fix.
    func prepareDirectory() throws(FileCoordinationError) {
        let path = directoryPath
        do {
            try SocketSystem.makeDirectory(path)
        } catch {
            throw .arbiterUnavailable("cannot create the coordination directory \(path): \(error)")
        }
        try checkDirectory()
    }

    /// Checks, without creating anything, that the directory is safe to use (see ``prepareDirectory()``).
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)``.
    func checkDirectory() throws(FileCoordinationError) {
        let path = directoryPath
        let status: (isDirectory: Bool, isSocket: Bool, owner: UInt32, mode: UInt32)
        do {
            status = try SocketSystem.status(of: path)
        } catch {
            throw .arbiterUnavailable("cannot use the coordination directory \(path): \(error)")
        }
        guard status.isDirectory else {
            throw .arbiterUnavailable("the coordination directory \(path) is not a directory (or is a symbolic link)")
        }
        guard status.owner == SocketSystem.userID else {
            throw .arbiterUnavailable(
                "the coordination directory \(path) belongs to uid \(status.owner), not to this user "
                    + "(uid \(SocketSystem.userID)); set QUIRE_COORDINATION_DIR to a directory of your own")
        }
        guard status.mode & 0o077 == 0 else {
            throw .arbiterUnavailable(
                "the coordination directory \(path) has mode \(String(status.mode, radix: 8)), "
                    + "which lets other users in; it must be 0700 (chmod 700 \(path))")
        }
    }

    /// Checks that the socket is a socket owned by this user with no access for others; false if there is none
    /// (no host yet, or a new host is replacing a dead one's).
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)``.
    @discardableResult
    func checkSocket() throws(FileCoordinationError) -> Bool {
        let path = socket
        let status: (isDirectory: Bool, isSocket: Bool, owner: UInt32, mode: UInt32)
        do {
            status = try SocketSystem.status(of: path)
        } catch where error.errno == ENOENT {
            return false
        } catch {
            throw .arbiterUnavailable("cannot use the arbiter socket \(path): \(error)")
        }
        guard status.isSocket else { throw .arbiterUnavailable("\(path) is not a socket") }
        guard status.owner == SocketSystem.userID else {
            throw .arbiterUnavailable(
                "the arbiter socket \(path) belongs to uid \(status.owner), not to this user (uid \(SocketSystem.userID))")
        }
        guard status.mode & 0o077 == 0 else {
            throw .arbiterUnavailable(
                "the arbiter socket \(path) has mode \(String(status.mode, radix: 8)); it must be 0600")
        }
        return true
    }
}
