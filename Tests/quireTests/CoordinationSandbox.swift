import Foundation

/// A private temporary directory for one test: its own `QUIRE_COORDINATION_DIR` (mode 0700), so that tests
/// never share a shared arbiter, and a folder for the files the test coordinates.
final class CoordinationSandbox {
    let root: URL
    /// The environment every `quire` of the test gets.
    let environment: [String: String]
    /// Where the test's files live.
    let files: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("quire-cli-\(UUID().uuidString)")
        let coordination = root.appendingPathComponent("coordination")
        files = root.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: coordination, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        environment = ["QUIRE_COORDINATION_DIR": coordination.path, "QUIRE_COORDINATION_SCOPE": "user"]
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// The path of `name` in the files folder.
    func path(_ name: String) -> String { files.appendingPathComponent(name).path }

    /// Writes `contents` to `name` and returns its path.
    @discardableResult
    func make(_ name: String, _ contents: String = "contents\n") throws -> String {
        try Data(contents.utf8).write(to: files.appendingPathComponent(name))
        return path(name)
    }

    /// Copies the fixture `fixture` to `name` in the files folder and returns its path.
    @discardableResult
    func copyFixture(_ fixture: String, as name: String) throws -> String {
        try FileManager.default.copyItem(atPath: QuireProcess.fixture(fixture), toPath: path(name))
        return path(name)
    }

    /// Runs `quire arguments…` in this sandbox (in `directory`, if given).
    func quire(
        _ arguments: [String], input: Data? = nil, timeout: TimeInterval = 60, directory: URL? = nil
    ) throws -> QuireProcess.Result {
        try QuireProcess.run(arguments, environment: environment, input: input, timeout: timeout, directory: directory)
    }

    /// Starts `quire arguments…` in the background in this sandbox.
    func start(_ arguments: [String]) throws -> RunningQuire {
        try RunningQuire(arguments, environment: environment)
    }

    /// Starts `quire exec ACCESS FILE` (`--read` or `--write`) around a command that prints `held` once the access
    /// is held and keeps it until its standard input is closed (``RunningQuire/closeInput()``).
    func startHolding(_ access: String, _ file: String) throws -> RunningQuire {
        try start(["exec", access, file, "--", "sh", "-c", "echo held; read line || true"])
    }
}
