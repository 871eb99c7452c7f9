import Foundation
import Logging
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

/// A private PostgreSQL server for the tests: Debian's `initdb` and `pg_ctl` in a temporary directory, on a free
/// loopback port, trusted local connections only, no fsync (the tests' data is thrown away). Started once per test
/// process on first use and stopped when the process exits. PostgreSQL refuses to run as root, so when the tests
/// run as root the server runs as Debian's `postgres` user (through `runuser`).
public final class PostgresServer: Sendable {
    /// The port it listens on at 127.0.0.1.
    public let port: Int
    /// The user every test database belongs to (a superuser: it creates the databases).
    public let user = "quire"
    /// Its directory (data, log and Unix socket).
    public let directory: String
    /// Debian's PostgreSQL programs.
    private let binaries: String

    private static let lock = NSLock()
    nonisolated(unsafe) private static var started: Result<PostgresServer, any Error>?

    /// Why the server could not be started.
    public struct StartFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// A server of the caller's own (a test that restarts it must not disturb the others), stopped when the test
    /// process exits. With `tls`, it also accepts TLS connections (`ssl=on`), with a certificate for the name
    /// `localhost` (only) signed by a certificate authority of its own (``certificateAuthorityFile``).
    /// - Throws: ``StartFailed`` when PostgreSQL (or, for TLS, openssl) is not installed or does not start.
    public static func makePrivate(tls: Bool = false) throws -> PostgresServer {
        try PostgresServer(tls: tls)
    }

    /// The PEM file of the authority that signed the server's certificate (when it was made with TLS).
    public var certificateAuthorityFile: String { directory + "/tls/ca.pem" }
    /// The PEM file of another authority, which signed nothing of this server's.
    public var otherAuthorityFile: String { directory + "/tls/other-ca.pem" }

    /// Restarts the server on its port (a fast shutdown: every connection is dropped), waiting until it accepts
    /// connections again.
    /// - Throws: ``StartFailed`` when it does not come back.
    public func restart() throws {
        let argv = (getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [
            binaries + "/pg_ctl", "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60",
            "-m", "fast", "restart",
        ]
        let status = try Self.spawn(argv, output: directory + "/restart.out", wait: true)
        guard status == 0 else { throw StartFailed(description: "pg_ctl restart failed (status \(status))") }
    }

    /// The test process's server, started on first use.
    /// - Throws: ``StartFailed`` when PostgreSQL is not installed or does not start (the message says why).
    public static func shared() throws -> PostgresServer {
        lock.lock()
        defer { lock.unlock() }
        if let started { return try started.get() }
        let result = Result { try PostgresServer() }
        started = result
        return try result.get()
    }

    private init(tls: Bool = false) throws {
        let binaries = try Self.binaries()
        self.binaries = binaries
        var template = Array("/tmp/quire-postgres-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw StartFailed(description: "mkdtemp: \(errno)") }
        let directory = String(cString: made)
        self.directory = directory
        let asRoot = getuid() == 0
        if asRoot {
            guard let postgres = getpwnam("postgres") else {
                throw StartFailed(description: "running as root, and there is no `postgres` user to run PostgreSQL")
            }
            chown(directory, postgres.pointee.pw_uid, postgres.pointee.pw_gid)
        }
        func run(_ program: String, _ arguments: [String]) throws {
            let argv = (asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] : [program]) + arguments
            let outputPath = directory + "/command.out"
            let status = try Self.spawn(argv, output: outputPath, wait: true)
            guard status == 0 else {
                let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
                throw StartFailed(
                    description: "\(argv.joined(separator: " ")) failed (status \(status)): \(text)")
            }
        }
        try run(
            binaries + "/initdb",
            ["-D", directory + "/data", "-U", "quire", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"])
        var tlsOptions = ""
        if tls {
            try Self.makeCertificates(in: directory + "/tls")
            if asRoot, let postgres = getpwnam("postgres") {
                for name in ["", "/server.key", "/server.pem"] {
                    chown(directory + "/tls" + name, postgres.pointee.pw_uid, postgres.pointee.pw_gid)
                }
            }
            tlsOptions =
                " -c ssl=on -c ssl_cert_file=\(directory)/tls/server.pem -c ssl_key_file=\(directory)/tls/server.key"
        }
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = try Self.freePort()
            do {
                try run(
                    binaries + "/pg_ctl",
                    [
                        "-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60", "-o",
                        "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off "
                            + "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200" + tlsOptions,
                        "start",
                    ])
                self.port = port
                Self.stopAtExit(pgCtl: binaries + "/pg_ctl", directory: directory, asRoot: asRoot)
                return
            } catch {
                lastError = error  // most likely the port was taken meanwhile: try another
            }
        }
        throw lastError ?? StartFailed(description: "PostgreSQL did not start")
    }

    /// Makes, with openssl, an authority (`ca.pem`), a server key and certificate it signed for `localhost`
    /// (`server.key`, 0600, and `server.pem`) and an unrelated authority (`other-ca.pem`) in `directory`.
    private static func makeCertificates(in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let script = """
            set -e
            cd '\(directory)'
            openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=quire-test-ca -keyout ca.key -out ca.pem
            openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca -keyout other-ca.key -out other-ca.pem
            openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key -out server.csr
            printf 'subjectAltName=DNS:localhost\\n' > server.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext \\
              -out server.pem
            chmod 600 server.key
            """
        let status = try spawn(["/bin/sh", "-c", script], output: directory + "/openssl.out", wait: true)
        guard status == 0 else {
            let text = (try? String(contentsOfFile: directory + "/openssl.out", encoding: .utf8)) ?? ""
            throw StartFailed(description: "making the test certificates with openssl failed: \(text)")
        }
    }

    /// The newest Debian PostgreSQL's `bin` directory.
    private static func binaries() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        guard let version = versions.last, FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/pg_ctl")
        else {
            throw StartFailed(
                description: "PostgreSQL is not installed (no \(root)/N/bin/pg_ctl): `make test` installs Debian's "
                    + "postgresql package")
        }
        return "\(root)/\(version)/bin"
    }

    /// A loopback TCP port no one listens on now.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw StartFailed(description: "socket: \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw StartFailed(description: "bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    nonisolated(unsafe) private static var stopCommand: [CChar] = []
    private static let stopLock = NSLock()

    /// Stops the server (immediate shutdown) and removes its directory when the test process exits, and, should
    /// the process be killed instead (no exit handler runs then), when a watcher sees it gone.
    private static func stopAtExit(pgCtl: String, directory: String, asRoot: Bool) {
        let prefix = asRoot ? "/usr/sbin/runuser -u postgres -- " : ""
        let stop = "\(prefix)\(pgCtl) -D \(directory)/data -m immediate stop >/dev/null 2>&1; rm -rf \(directory)"
        stopLock.lock()
        defer { stopLock.unlock() }
        let first = stopCommand.isEmpty
        let joined = first ? stop : String(decoding: stopCommand.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self) + "; " + stop
        stopCommand = Array(joined.utf8CString)
        if first {
            atexit {
                PostgresServer.stopCommand.withUnsafeBufferPointer { _ = system($0.baseAddress) }
            }
        }
        let watch = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; [ -d \(directory) ] && { \(stop); }"
        _ = try? spawn(["/bin/sh", "-c", watch], output: "/dev/null", wait: false)
    }

    /// Starts `argv` with standard output and error to the file `output` (not a pipe: the server pg_ctl starts
    /// would inherit it and hold it open) and, when `wait`, waits for it: its exit status (or 128 + the signal).
    /// posix_spawn and waitpid, not Foundation's Process, whose exit monitoring left pg_ctl's runuser unreaped here.
    private static func spawn(_ argv: [String], output: String, wait: Bool) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = argv.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, argv[0], &actions, nil, arguments, environ)
        guard spawned == 0 else { throw StartFailed(description: "posix_spawn \(argv[0]): \(spawned)") }
        guard wait else { return 0 }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            guard errno == EINTR else { throw StartFailed(description: "waitpid: \(errno)") }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// The client configuration for `database` on this server.
    public func configuration(database: String) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: port, username: user, password: nil, database: database, tls: .disable)
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = 8
        return configuration
    }

    /// The URL of `database` on this server, as `quire serve --database` takes it.
    public func url(database: String) -> String { "postgres://\(user)@127.0.0.1:\(port)/\(database)" }

    /// Makes a new, empty database and returns its name.
    public func createDatabase() async throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await Self.withClient(configuration(database: "postgres")) { client in
            _ = try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        }
        return name
    }

    /// Runs `body` with a running client for `configuration`; the client stops when `body` returns or throws.
    public static func withClient<T: Sendable>(
        _ configuration: PostgresClient.Configuration, _ body: @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "test.postgres"))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}
