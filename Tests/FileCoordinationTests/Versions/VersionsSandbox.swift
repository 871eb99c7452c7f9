import FileCoordination
import Foundation
import Testing

/// A private versions store and a folder for items, removed when the test ends; `run` binds the store as
/// ``FileVersionStore/current`` for its body.
final class VersionsSandbox {
    /// The folder holding the store and the items.
    let root: URL
    /// The private store.
    let store: FileVersionStore
    /// A folder for the test's items.
    let items: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("quire-versions-\(UUID().uuidString)")
        items = root.appendingPathComponent("items")
        try FileManager.default.createDirectory(at: items, withIntermediateDirectories: true)
        store = FileVersionStore(directory: root.appendingPathComponent("store"))
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// Writes `text` to the item `name` and returns its URL.
    @discardableResult
    func write(_ text: String, to name: String) throws -> URL {
        let url = items.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// The text of the file at `url`.
    func text(at url: URL) throws -> String {
        String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }

    /// Runs `body` with this sandbox's store as the current one.
    func run<R>(_ body: () throws -> R) throws -> R {
        try FileVersionStore.$current.withValue(store) { try body() }
    }
}

/// Runs the `VersionsProbe` helper (built next to the test bundle) as a second process.
enum VersionsProbeRunner {
    /// Runs the probe with `arguments` on `store` (its `QUIRE_VERSIONS_DIR`; the coordination directory is this
    /// process's); returns its output lines. Fails the test if it exits with an error.
    static func run(_ arguments: [String], store: FileVersionStore) throws -> [String] {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        var executable = directory.appendingPathComponent("VersionsProbe")
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("VersionsProbe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                executable = candidate
                break
            }
            directory.deleteLastPathComponent()
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["QUIRE_VERSIONS_DIR"] = store.directory.path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "VersionsProbe \(arguments) exited \(process.terminationStatus)")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
