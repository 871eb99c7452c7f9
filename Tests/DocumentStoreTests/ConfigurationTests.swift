import DocumentStore
import FileCoordination
import Foundation
import Testing

@Suite("Configuration: sources, precedence and validation")
struct ConfigurationTests {
    @Test("without file, environment or flags, the built-in defaults apply")
    func builtInDefaults() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = try StoreConfiguration.load(environment: [:], workingDirectory: directory.url)
        #expect(configuration.storeDirectory.path == directory.url.appendingPathComponent(".quire-data").path)
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.coordinationScope == .user)
        #expect(configuration.maxUploadBytes == 104_857_600)
        #expect(configuration.maxOpenDocuments == 64)
        #expect(configuration.maxDPI == 600)
        #expect(configuration.uploadBudgetBytes == 536_870_912)
        #expect(configuration.headerTimeout == .seconds(10))
        #expect(configuration.idleTimeout == .seconds(60))
        #expect(configuration.maxConnections == 10_000)
        #expect(configuration.token == nil)
        #expect(configuration.roots.isEmpty)
        #expect(configuration.catalogURL.lastPathComponent == "catalog.sqlite")
    }

    @Test("config/quire.json says exactly what the built-in defaults say")
    func shippedFileEqualsDefaults() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = packageRoot.appendingPathComponent("config/quire.json").path
        let fromFile = try StoreConfiguration.load(configFile: file, environment: [:], workingDirectory: directory.url)
        let builtIn = try StoreConfiguration.load(environment: [:], workingDirectory: directory.url)
        #expect(fromFile == builtIn)
    }

    @Test("flags beat the environment, which beats the file, which beats the defaults")
    func precedence() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for name in ["file-root", "env-root", "flag-root"] { _ = try directory.directory(name) }
        try directory.file(
            "quire.json",
            contents: """
                {"host": "10.0.0.1", "port": 1001, "store": "file-store", "token": "file-token",
                 "roots": ["file-root"], "maxDPI": 100, "coordination": {"scope": "process"}}
                """)
        let environment = [
            "QUIRE_HOST": "10.0.0.2", "QUIRE_PORT": "1002", "QUIRE_TOKEN": "env-token", "QUIRE_ROOTS": "env-root",
        ]
        let overrides = ConfigurationOverrides(host: "10.0.0.3", roots: ["flag-root"])
        let configuration = try StoreConfiguration.load(
            configFile: "quire.json", environment: environment, overrides: overrides, workingDirectory: directory.url)
        #expect(configuration.host == "10.0.0.3")  // flag over environment and file
        #expect(configuration.roots.map(\.lastPathComponent) == ["flag-root"])  // flag over environment and file
        #expect(configuration.port == 1002)  // environment over file
        #expect(configuration.token == "env-token")  // environment over file
        #expect(configuration.storeDirectory.lastPathComponent == "file-store")  // file over default
        #expect(configuration.maxDPI == 100)  // file over default
        #expect(configuration.coordinationScope == .process)  // nested key in the file
        #expect(configuration.maxOpenDocuments == 64)  // default
    }

    @Test("every flag overrides its key")
    func everyFlag() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let root = try directory.directory("root")
        let overrides = ConfigurationOverrides(
            store: "s", host: "::1", port: 0, coordinationScope: "process", maxUploadBytes: 10, maxOpenDocuments: 2,
            maxDPI: 1200, uploadBudgetBytes: 20, headerTimeoutSeconds: 1, idleTimeoutSeconds: 2, maxConnections: 30,
            token: "abc.DEF-_~+/==", roots: ["root", "root"])
        let configuration = try StoreConfiguration.load(
            environment: [:], overrides: overrides, workingDirectory: directory.url)
        let expected = StoreConfiguration(
            storeDirectory: directory.url.appendingPathComponent("s", isDirectory: true).standardizedFileURL,
            host: "::1", port: 0, coordinationScope: .process, maxUploadBytes: 10, maxOpenDocuments: 2, maxDPI: 1200,
            uploadBudgetBytes: 20, headerTimeout: .seconds(1), idleTimeout: .seconds(2), maxConnections: 30,
            token: "abc.DEF-_~+/==", roots: [URL(fileURLWithPath: try #require(realPath(root.path)), isDirectory: true)]
        )
        #expect(configuration == expected)
    }

    @Test("every environment variable overrides its key; QUIRE_ROOTS is colon-separated")
    func everyEnvironmentVariable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try directory.directory("first")
        let second = try directory.directory("second")
        let environment = [
            "QUIRE_STORE": "/srv/quire", "QUIRE_HOST": "localhost", "QUIRE_PORT": "9090",
            "QUIRE_COORDINATION_SCOPE": "process", "QUIRE_MAX_UPLOAD_BYTES": "2048", "QUIRE_MAX_OPEN_DOCUMENTS": "3",
            "QUIRE_MAX_DPI": "300", "QUIRE_TOKEN": "secret", "QUIRE_ROOTS": "\(first.path)::second",
            "QUIRE_UPLOAD_BUDGET_BYTES": "4096", "QUIRE_HEADER_TIMEOUT_SECONDS": "3", "QUIRE_IDLE_TIMEOUT_SECONDS": "4",
            "QUIRE_MAX_CONNECTIONS": "50", "QUIRE_PDF_WORKERS": "3", "QUIRE_PDF_DEADLINE_SECONDS": "7",
        ]
        let configuration = try StoreConfiguration.load(environment: environment, workingDirectory: directory.url)
        #expect(configuration.storeDirectory.path == "/srv/quire")
        #expect(configuration.host == "localhost")
        #expect(configuration.port == 9090)
        #expect(configuration.coordinationScope == .process)
        #expect(configuration.maxUploadBytes == 2048)
        #expect(configuration.maxOpenDocuments == 3)
        #expect(configuration.maxDPI == 300)
        #expect(configuration.token == "secret")
        #expect(configuration.uploadBudgetBytes == 4096)
        #expect(configuration.headerTimeout == .seconds(3))
        #expect(configuration.idleTimeout == .seconds(4))
        #expect(configuration.maxConnections == 50)
        #expect(configuration.pdfWorkers == 3)
        #expect(configuration.pdfDeadline == .seconds(7))
        #expect(configuration.roots.map(\.path) == [first.path, second.path].map { realPath($0)! })
    }

    @Test("the polling windows: measured defaults, each set from the file, the environment or a flag, bounded")
    func pollingWindows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let defaults = try StoreConfiguration.load(environment: [:], workingDirectory: directory.url).polling
        #expect(defaults.coordination == CoordinationPolling(
            waitingClient: .microseconds(200), handOver: .microseconds(500), host: .microseconds(100)))
        #expect(defaults.workerReply == .microseconds(2000))
        #expect(defaults.workerIdle == .microseconds(1500))
        try directory.file(
            "quire.json",
            contents: #"{"coordination": {"pollMicroseconds": 0, "hostPollMicroseconds": 7}, "workers": {"pollMicroseconds": 9}}"#)
        let configured = try StoreConfiguration.load(
            configFile: "quire.json",
            environment: ["QUIRE_COORDINATION_HAND_OVER_POLL_MICROSECONDS": "11", "QUIRE_WORKERS_POLL_MICROSECONDS": "13"],
            overrides: ConfigurationOverrides(workersIdlePollMicroseconds: 0), workingDirectory: directory.url
        ).polling
        #expect(configured.coordination == CoordinationPolling(
            waitingClient: .zero, handOver: .microseconds(11), host: .microseconds(7)))
        #expect(configured.workerReply == .microseconds(13))  // environment over file
        #expect(configured.workerIdle == .zero)  // flag
        #expect(throws: ConfigurationError.self) {
            try StoreConfiguration.load(
                environment: ["QUIRE_COORDINATION_POLL_MICROSECONDS": "100001"], workingDirectory: directory.url)
        }
        #expect(throws: ConfigurationError.self) {
            try StoreConfiguration.load(
                environment: [:], overrides: ConfigurationOverrides(workersPollMicroseconds: -1),
                workingDirectory: directory.url)
        }
    }

    @Test("roots are resolved through symbolic links")
    func rootsResolveSymlinks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let real = try directory.directory("real")
        let link = directory.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let configuration = try StoreConfiguration.load(
            environment: ["QUIRE_ROOTS": link.path], workingDirectory: directory.url)
        #expect(configuration.roots.map(\.path) == [realPath(real.path)!])
    }

    /// An invalid value, where it comes from, and the line start-up must stop with.
    struct InvalidCase: Sendable, CustomTestStringConvertible {
        let environment: [String: String]
        let overrides: ConfigurationOverrides
        let file: String?
        let expected: String
        var testDescription: String { expected }

        init(
            environment: [String: String] = [:], overrides: ConfigurationOverrides = .init(), file: String? = nil,
            _ expected: String
        ) {
            self.environment = environment
            self.overrides = overrides
            self.file = file
            self.expected = expected
        }
    }

    static let invalidCases: [InvalidCase] = [
        InvalidCase(
            environment: ["QUIRE_PORT": "eighty"],
            #"invalid configuration: port = "eighty" from environment variable QUIRE_PORT: must be a whole number"#),
        InvalidCase(
            environment: ["QUIRE_PORT": "70000"],
            "invalid configuration: port = 70000 from environment variable QUIRE_PORT: "
                + "must be a port number from 0 (any free port) to 65535"),
        InvalidCase(
            environment: ["QUIRE_HEADER_TIMEOUT_SECONDS": "0"],
            "invalid configuration: headerTimeoutSeconds = 0 from environment variable QUIRE_HEADER_TIMEOUT_SECONDS: "
                + "must be a number of seconds from 1 to 3600"),
        InvalidCase(
            overrides: ConfigurationOverrides(maxConnections: 0),
            "invalid configuration: maxConnections = 0 from flag --max-connections: "
                + "must be a number of connections from 1 to 1000000"),
        InvalidCase(
            overrides: ConfigurationOverrides(port: -1),
            "invalid configuration: port = -1 from flag --port: must be a port number from 0 (any free port) to 65535"),
        InvalidCase(
            file: #"{"port": "8080"}"#,
            #"invalid configuration: port = "8080" from quire.json (key "port"): must be a whole number"#),
        InvalidCase(
            environment: ["QUIRE_HOST": "not a host"],
            #"invalid configuration: host = "not a host" from environment variable QUIRE_HOST: "#
                + "must be an IP address or a host name"),
        InvalidCase(
            overrides: ConfigurationOverrides(host: ""),
            #"invalid configuration: host = "" from flag --host: must be an IP address or a host name"#),
        InvalidCase(
            file: #"{"coordination": {"scope": "global"}}"#,
            #"invalid configuration: coordination.scope = "global" from quire.json (key "coordination.scope"): "#
                + #"must be "user" or "process""#),
        InvalidCase(
            environment: ["QUIRE_MAX_UPLOAD_BYTES": "0"],
            "invalid configuration: maxUploadBytes = 0 from environment variable QUIRE_MAX_UPLOAD_BYTES: "
                + "must be a positive number of bytes"),
        InvalidCase(
            overrides: ConfigurationOverrides(maxOpenDocuments: 0),
            "invalid configuration: maxOpenDocuments = 0 from flag --max-open-documents: must be a positive number"),
        InvalidCase(
            environment: ["QUIRE_MAX_DPI": "5000"],
            "invalid configuration: maxDPI = 5000 from environment variable QUIRE_MAX_DPI: must be a DPI from 1 to 1200"
        ),
        InvalidCase(
            environment: ["QUIRE_TOKEN": ""],
            "invalid configuration: token = <redacted> from environment variable QUIRE_TOKEN: must be a non-empty "
                + "bearer token of letters, digits and -._~+/ (unset it to disable tokens)"),
        InvalidCase(
            environment: ["QUIRE_DATABASE": "mysql://quire:hunter2@db/quire"],
            #"invalid configuration: database = "mysql://quire:***@db/quire" from environment variable "#
                + "QUIRE_DATABASE: must be a PostgreSQL URL, postgres://user[:password]@host[:port]/database (unset "
                + "it for one node)"),
        InvalidCase(
            overrides: ConfigurationOverrides(database: "postgres://quire:hunter2@db"),
            #"invalid configuration: database = "postgres://quire:***@db" from flag --database: must be a "#
                + "PostgreSQL URL, postgres://user[:password]@host[:port]/database (unset it for one node)"),
        InvalidCase(
            environment: ["QUIRE_DATABASE": "postgres://quire:hunter2@db/quire?sslmode=verify"],
            #"invalid configuration: database = "postgres://quire:***@db/quire?sslmode=verify" from environment "#
                + "variable QUIRE_DATABASE: has sslmode=verify: it must be one of disable, prefer, require, verify-ca, "
                + "verify-full (unset it for one node)"),
        InvalidCase(
            environment: ["QUIRE_DATABASE": "postgres://quire@db/quire?connect_timeout=3"],
            #"invalid configuration: database = "postgres://quire@db/quire?connect_timeout=3" from environment "#
                + #"variable QUIRE_DATABASE: has the parameter "connect_timeout": only sslmode and sslrootcert are "#
                + "understood (unset it for one node)"),
        InvalidCase(
            environment: ["QUIRE_DATABASE": "postgres://quire@db/quire?sslmode=verify-full&sslrootcert=/nonexistent.pem"],
            #"invalid configuration: database = "postgres://quire@db/quire?sslmode=verify-full&sslrootcert=/nonexistent.pem" "#
                + "from environment variable QUIRE_DATABASE: names sslrootcert=/nonexistent.pem, which is not a "
                + "readable PEM file of certificates"),
        InvalidCase(
            overrides: ConfigurationOverrides(token: "two words"),
            "invalid configuration: token = <redacted> from flag --token: must be a non-empty bearer token of "
                + "letters, digits and -._~+/ (unset it to disable tokens)"),
        InvalidCase(
            environment: ["QUIRE_ROOTS": "/nonexistent-quire-root"],
            #"invalid configuration: roots = "/nonexistent-quire-root" from environment variable QUIRE_ROOTS: "#
                + "must be an existing directory"),
        InvalidCase(
            overrides: ConfigurationOverrides(roots: ["a-file"]),
            #"invalid configuration: roots = "a-file" from flag --root: must be an existing directory"#),
        InvalidCase(
            file: #"{"roots": "/tmp"}"#,
            #"invalid configuration: roots = "/tmp" from quire.json (key "roots"): must be a list of strings"#),
        InvalidCase(
            overrides: ConfigurationOverrides(store: "a-file"),
            #"invalid configuration: store = "a-file" from flag --store: exists and is not a directory"#),
        InvalidCase(
            file: #"{"prot": 8080}"#,
            #"invalid configuration: unknown key "prot" in quire.json (known keys: store, host, port, "#
                + "coordination.scope, maxUploadBytes, maxOpenDocuments, maxDPI, uploadBudgetBytes, "
                + "headerTimeoutSeconds, "
                + "idleTimeoutSeconds, minBodyBytesPerSecond, bodyTimeoutSeconds, maxConnections, pdfWorkers, pdfDeadlineSeconds, pdfMemoryMiB, token, database, "
                + "contentCheckSeconds, roots, log.level, log.format, coordination.pollMicroseconds, "
                + "coordination.handOverPollMicroseconds, coordination.hostPollMicroseconds, workers.pollMicroseconds, "
                + "workers.idlePollMicroseconds)"),
        InvalidCase(
            overrides: ConfigurationOverrides(pdfWorkers: 0),
            "invalid configuration: pdfWorkers = 0 from flag --pdf-workers: must be a number of worker processes "
                + "from 1 to 256"),
        InvalidCase(
            file: #"{"pdfDeadlineSeconds": 0}"#,
            "invalid configuration: pdfDeadlineSeconds = 0 from quire.json (key \"pdfDeadlineSeconds\"): must be a "
                + "number of seconds from 1 to 3600"),
        InvalidCase(file: "[1, 2]", "invalid configuration: cannot use quire.json: the top level is not a JSON object"),
    ]

    @Test(
        "an invalid value stops start-up with one line naming the key, the value and the source",
        arguments: invalidCases)
    func invalidValue(_ invalid: InvalidCase) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.file("a-file", contents: "not a directory")
        if let file = invalid.file { try directory.file("quire.json", contents: file) }
        let error = #expect(throws: ConfigurationError.self) {
            try StoreConfiguration.load(
                configFile: invalid.file == nil ? nil : "quire.json", environment: invalid.environment,
                overrides: invalid.overrides, workingDirectory: directory.url)
        }
        #expect(error?.description == invalid.expected)
        #expect(error?.description.contains("\n") == false)
    }

    @Test("a missing or malformed file stops start-up with one line naming it")
    func unreadableFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = #expect(throws: ConfigurationError.self) {
            try StoreConfiguration.load(configFile: "missing.json", environment: [:], workingDirectory: directory.url)
        }
        #expect(missing?.description == "invalid configuration: cannot use missing.json: no such file")
        try directory.file("broken.json", contents: "{\"port\": ")
        let broken = #expect(throws: ConfigurationError.self) {
            try StoreConfiguration.load(configFile: "broken.json", environment: [:], workingDirectory: directory.url)
        }
        let description = try #require(broken?.description)
        #expect(description.hasPrefix("invalid configuration: cannot use broken.json: not valid JSON"))
        #expect(!description.contains("\n"))
    }

    @Test("environment variables of other programs are ignored")
    func unrelatedEnvironment() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = try StoreConfiguration.load(
            environment: ["PORT": "1", "HOST": "x y", "TOKEN": ""], workingDirectory: directory.url)
        #expect(configuration.port == 8080)
        #expect(configuration.token == nil)
    }
}

/// `realpath(3)` of a path, as the configuration resolves roots.
func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

extension ConfigurationTests {
    @Test("the example config/shared-folder.json has only known keys and valid values")
    func exampleFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Its root and store are for a real machine: point them here.
        let root = try directory.directory("pdf")
        let configuration = try StoreConfiguration.load(
            configFile: packageRoot.appendingPathComponent("config/shared-folder.json").path, environment: [:],
            overrides: ConfigurationOverrides(store: "store", roots: [root.path]), workingDirectory: directory.url)
        #expect(configuration.token == "change-me")
    }
}

extension ConfigurationTests {
    @Test("a PostgreSQL URL becomes the cluster's database address; the password stays out of its description")
    func databaseAddress() throws {
        let address = try #require(DatabaseAddress(url: "postgresql://node:s%40cret@db.example:6543/quire_store"))
        #expect(address.host == "db.example")
        #expect(address.port == 6543)
        #expect(address.user == "node")
        #expect(address.password == "s@cret")
        #expect(address.database == "quire_store")
        #expect(address.description == "postgres://node@db.example:6543/quire_store")
        #expect(DatabaseAddress(url: "postgres://node@db/quire")?.port == 5432)
        // libpq's sslmode and sslrootcert; prefer (TLS when offered) when the URL says nothing, as psql does.
        #expect(address.tlsMode == .prefer)
        let verified = try #require(
            DatabaseAddress(url: "postgres://node@db/quire?sslmode=verify-full&sslrootcert=/etc/quire/ca.pem"))
        #expect(verified.tlsMode == .verifyFull)
        #expect(verified.rootCertificateFile == "/etc/quire/ca.pem")
        #expect(verified.description == "postgres://node@db:5432/quire?sslmode=verify-full")
        #expect(DatabaseAddress(url: "postgres://node@db/quire?sslmode=disable")?.tlsMode == .disable)
        for invalid in [
            "postgres://db/quire", "postgres://node@/quire", "postgres://node@db", "postgres://node@db/a/b",
            "http://node@db/quire", "postgres://node@db:0/quire", "not a url", "postgres://node@db/quire?sslmode=on",
            "postgres://node@db/quire?sslrootcert=", "postgres://node@db/quire?application_name=x",
        ] {
            #expect(DatabaseAddress(url: invalid) == nil, "\(invalid)")
        }
    }
}
