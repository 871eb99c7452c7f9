import Foundation
import StoreClient

/// A `quire serve` child process on a free loopback port, with its own store and coordination directory, and
/// a client of it. Every wait is bounded.
final class RunningService: @unchecked Sendable {
    /// The sandbox whose coordination directory and environment the service uses.
    let sandbox: CoordinationSandbox
    /// The store directory.
    let store: URL
    /// The root directory whose files may be registered.
    let root: URL
    /// The service's URL, from its listening line.
    private(set) var url: String
    private(set) var process: RunningQuire
    private let extraArguments: [String]
    private let extraEnvironment: [String: String]

    /// Starts `quire serve --port 0` (or `port`) with a store and a root in `sandbox`.
    /// `store` and `root`, when given, replace the sandbox's own (the nodes of a cluster share them).
    init(
        sandbox: CoordinationSandbox, port: Int = 0, arguments: [String] = [], environment: [String: String] = [:],
        store: URL? = nil, root: URL? = nil
    ) throws {
        self.sandbox = sandbox
        self.store = store ?? sandbox.root.appendingPathComponent("store")
        self.root = root ?? sandbox.files
        let store = self.store
        let root = self.root
        extraArguments = arguments
        extraEnvironment = environment
        (process, url) = try Self.start(
            sandbox: sandbox, store: store, root: root, port: port, arguments: arguments, environment: environment)
    }

    deinit {
        process.kill()
    }

    private static func start(
        sandbox: CoordinationSandbox, store: URL, root: URL, port: Int, arguments: [String],
        environment: [String: String]
    ) throws -> (RunningQuire, String) {
        let process = try RunningQuire(
            ["serve", "--port", String(port), "--store", store.path, "--root", root.path] + arguments,
            environment: sandbox.environment.merging(environment) { $1 })
        guard process.waitFor("quire serve: listening on ", timeout: 60),
            let line = process.standardOutput.split(separator: "\n").first(where: {
                $0.hasPrefix("quire serve: listening on ")
            })
        else {
            process.terminate()
            throw ServiceDidNotStart(standardError: process.standardError)
        }
        return (process, String(line.dropFirst("quire serve: listening on ".count)))
    }

    /// The port the service listens on.
    var port: Int { Int(url.split(separator: ":").last ?? "") ?? 0 }

    /// A new client of the service (shut it down when done).
    func client(token: String? = nil) throws -> StoreClient {
        try StoreClient(server: url, token: token)
    }

    /// Stops the service with SIGTERM; its exit status (nil when it did not exit within 30 s, in which case it is
    /// killed, so that no test leaves a service behind).
    @discardableResult
    func stop() -> Int32? {
        process.terminate()
        if let status = process.waitForExit(timeout: 30) { return status }
        process.kill()
        return nil
    }

    /// Starts the service again on the same port and store, after ``stop()``.
    func restart() throws {
        (process, url) = try Self.start(
            sandbox: sandbox, store: store, root: root, port: port, arguments: extraArguments,
            environment: extraEnvironment)
    }

    struct ServiceDidNotStart: Error, CustomStringConvertible {
        let standardError: String
        var description: String { "quire serve did not start listening; standard error:\n\(standardError)" }
    }
}
