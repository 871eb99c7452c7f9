import Foundation
import NIOCore
import Synchronization

/// Where request bodies enter the store: the directory they are streamed into (``directory``), the budget of
/// upload bytes in flight (``budget``) and the largest body (``limit``), composed by ``DocumentLibrary``.
///
/// One node's bodies go to `<store>/incoming`, emptied at start (what a crash left there is no one's: the store's
/// lock says no other service writes there). A cluster's nodes share the store directory: each streams into a
/// directory of its own, `<store>/incoming/node-<UUID>`, removed when the node stops.
package final class UploadIntake: Sendable {
    /// The directory bodies are streamed into (mode 0700).
    package let directory: URL
    /// The budget of upload bytes in flight (``StoreConfiguration/uploadBudgetBytes``).
    let budget: UploadBudget
    /// The most bytes one body may have (``StoreConfiguration/maxUploadBytes``); a reload of the configuration
    /// changes it (``setLimit(_:)``), for the bodies that start after.
    package var limit: Int { limitBox.load(ordering: .relaxed) }
    private let limitBox: Atomic<Int>
    /// Whether ``directory`` is this node's alone in a shared store (removed at ``close()``).
    private let isPerNode: Bool

    /// Makes the intake of the store in `storeDirectory`: empties `<store>/incoming` for one node, or makes a
    /// directory of this node's own beneath it for a cluster's node (`sharedStore`).
    /// - Throws: `CocoaError` when the directory cannot be made.
    init(storeDirectory: URL, sharedStore: Bool, budgetBytes: Int, limit: Int) throws {
        let incoming = storeDirectory.appendingPathComponent("incoming", isDirectory: true)
        if sharedStore {
            directory = incoming.appendingPathComponent("node-" + UUID().uuidString, isDirectory: true)
        } else {
            directory = incoming
            try? FileManager.default.removeItem(at: incoming)
        }
        isPerNode = sharedStore
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        budget = UploadBudget(limit: budgetBytes)
        limitBox = Atomic(limit)
    }

    /// Streams `body` into a temporary file of ``directory`` (see ``IncomingUpload``), within `limit` bytes (at
    /// most ``limit``) and the budget; `blocking` runs the file's I/O off the cooperative pool.
    /// - Throws: ``StoreError/tooLarge(limit:)`` above the limit (a declared length before any byte is read),
    ///   ``StoreError/uploadBudgetExhausted(budget:retryAfterSeconds:)`` when the budget is spent, or the error of
    ///   the file or the body. Nothing stays in the directory or the budget then.
    func receive<Body: AsyncSequence & Sendable>(
        _ body: Body, declaredLength: Int?, limit: Int,
        blocking: @Sendable (@escaping @Sendable () throws -> Void) async throws -> Void
    ) async throws -> IncomingUpload where Body.Element == ByteBuffer {
        try await IncomingUpload.receive(
            body, declaredLength: declaredLength, limit: min(limit, self.limit), budget: budget, directory: directory,
            blocking: blocking)
    }

    /// Makes `limit` the most bytes a body that starts from now on may have.
    package func setLimit(_ limit: Int) {
        limitBox.store(limit, ordering: .relaxed)
    }

    /// The upload bytes in flight now.
    var bytesInFlight: Int { budget.inFlight }

    /// A cluster node's directory is removed (with what is left in it); one node's stays for the next start.
    func close() {
        if isPerNode { try? FileManager.default.removeItem(at: directory) }
    }
}
