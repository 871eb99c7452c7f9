import Foundation
import StoreClient
import Testing

@Suite("quire serve")
struct ServeCommandTests {
    @Test("serve --port 0 prints one listening line with the real port, answers /health, stops on SIGTERM with 0")
    func servesAndStops() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        #expect(service.url.hasPrefix("http://127.0.0.1:"))
        #expect(service.port > 0)
        let client = try service.client()
        let health = try await client.health()
        try await client.shutdown()
        #expect(health.status == .ok)
        #expect(health.lastEventId == 0)
        #expect(service.stop() == 0)
        #expect(service.process.standardOutput == "quire serve: listening on \(service.url)\n")
        #expect(FileManager.default.fileExists(atPath: service.store.appendingPathComponent("catalog.sqlite").path))
    }

    @Test("SIGINT stops it gracefully too")
    func stopsOnInterrupt() throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        kill(service.process.pid, SIGINT)
        #expect(service.process.waitForExit(timeout: 30) == 0)
    }

    @Test(
        "invalid configuration is one line on standard error and exit code 78",
        arguments: [
            (["--port", "70000"], [:], "invalid configuration: port = 70000 from "),
            (
                [], ["QUIRE_MAX_DPI": "5000"],
                "invalid configuration: maxDPI = 5000 from environment variable QUIRE_MAX_DPI"
            ),
            (
                ["--coordination-scope", "galaxy"], [:],
                "invalid configuration: coordination.scope = \"galaxy\" from flag --coordination-scope"
            ),
            (
                ["--config", "/nonexistent/quire.json"], [:],
                "invalid configuration: cannot use /nonexistent/quire.json"
            ),
        ] as [([String], [String: String], String)])
    func invalidConfiguration(arguments: [String], environment: [String: String], expected: String) throws {
        let sandbox = try CoordinationSandbox()
        let store = sandbox.root.appendingPathComponent("store").path
        let result = try QuireProcess.run(
            ["serve", "--store", store] + arguments, environment: sandbox.environment.merging(environment) { $1 },
            timeout: 30)
        #expect(result.status == 78)
        #expect(result.output.isEmpty)
        #expect(result.errorLines.count == 1, "\(result.standardError)")
        #expect(result.errorLines.first?.hasPrefix("quire: error: " + expected) == true, "\(result.standardError)")
    }

    @Test("a port another service holds: one line, exit code 69")
    func portInUse() throws {
        let sandbox = try CoordinationSandbox()
        let first = try RunningService(sandbox: sandbox)
        let store = sandbox.root.appendingPathComponent("second-store").path
        let result = try QuireProcess.run(
            ["serve", "--port", String(first.port), "--store", store], environment: sandbox.environment, timeout: 30)
        #expect(result.status == 69)
        let line = result.standardError.split(separator: "\n").last.map(String.init) ?? ""
        #expect(
            line.hasPrefix("quire: error: cannot listen on http://127.0.0.1:\(first.port) ("), "\(result.standardError)"
        )
        #expect(first.stop() == 0)
    }

    @Test("a second service on the same store refuses to start: one line, exit code 75; the first keeps serving")
    func storeInUse() async throws {
        let sandbox = try CoordinationSandbox()
        let first = try RunningService(sandbox: sandbox)
        let result = try QuireProcess.run(
            ["serve", "--port", "0", "--store", first.store.path], environment: sandbox.environment, timeout: 30)
        #expect(result.status == 75)
        #expect(result.output.isEmpty, "\(result.output)")
        #expect(
            result.errorLines == [
                "quire: error: the store \(first.store.path) is in use by another quire serve "
                    + "(pid \(first.process.pid))"
            ], "\(result.standardError)")
        let client = try first.client()
        let health = try await client.health()
        try await client.shutdown()
        #expect(health.status == .ok)
        #expect(first.stop() == 0)
    }

    // Fails on main (issue 29, item 5): with quire.lock deleted, the second service started on the same store.
    @Test("quire.lock deleted under a running service: a second service is still refused (the directory is locked)")
    func storeLockFileDeleted() async throws {
        let sandbox = try CoordinationSandbox()
        let first = try RunningService(sandbox: sandbox)
        try FileManager.default.removeItem(at: first.store.appendingPathComponent("quire.lock"))
        let result = try QuireProcess.run(
            ["serve", "--port", "0", "--store", first.store.path], environment: sandbox.environment, timeout: 30)
        #expect(result.status == 75, "\(result.standardError)")
        #expect(
            result.errorLines == ["quire: error: the store \(first.store.path) is in use by another quire serve"],
            "\(result.standardError)")
        let client = try first.client()
        #expect(try await client.health().status == .ok)
        try await client.shutdown()
        #expect(first.stop() == 0)
    }

    @Test("a usage error is one line and exit code 64")
    func usageError() throws {
        let result = try QuireProcess.run(["serve", "--port", "many"])
        #expect(result.status == 64)
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.hasPrefix("quire: error: ") == true)
    }

    @Test("quire links neither poppler nor the service stack; quire-store is installed next to it")
    func quireStaysSmall() throws {
        let quire = QuireProcess.executable
        let ldd = Process()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        ldd.arguments = [quire.path]
        let pipe = Pipe()
        ldd.standardOutput = pipe
        try ldd.run()
        let libraries = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ldd.waitUntilExit()
        for library in ["libpoppler", "libcairo", "libglib", "libsqlite3", "libssl"] {
            #expect(!libraries.contains(library), "quire links \(library)")
        }
        let binary = try Data(contentsOf: quire)
        for module in ["Hummingbird", "NIOCore", "NIOPosix", "AsyncHTTPClient", "GRDB", "DocumentStore", "StoreClient"]
        {
            #expect(binary.range(of: Data(module.utf8)) == nil, "quire contains the module \(module)")
        }
        let helper = quire.deletingLastPathComponent().appendingPathComponent("quire-store")
        #expect(FileManager.default.isExecutableFile(atPath: helper.path))
    }
}
