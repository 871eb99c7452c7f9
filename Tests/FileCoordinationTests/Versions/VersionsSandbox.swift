import FileCoordination
import Foundation

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
