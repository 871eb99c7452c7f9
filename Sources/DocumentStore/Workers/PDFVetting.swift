import Documents
import Foundation
import PDFWorkerWire
import Synchronization

/// Has a PDF worker open bytes (every page's size and label read, within the deadline) before the service parses
/// them itself, and remembers the last contents that passed, so that bytes checked once (an upload, then the
/// first open of its document) are not checked again.
final class PDFVetting: Sendable {
    /// The workers that do the check.
    let workers: PDFWorkerPool
    private let passed = Mutex(RecentContents(capacity: 256))

    /// Vetting through `workers`.
    init(workers: PDFWorkerPool) {
        self.workers = workers
    }

    /// Checks `bytes` (opened with `password` if encrypted); remembers them when they pass.
    /// - Throws: a ``PDFWorkError``: the worker's refusal (not a PDF, a password needed), its crash, a missed
    ///   deadline, or no worker free.
    func check(_ bytes: Data, password: String?, key: String) async throws {
        let contents = ContentFingerprint(of: bytes)
        if passed.withLock({ $0.contains(contents) }) { return }
        _ = try await workers.run(request(password), pdf: bytes, key: key)
        passed.withLock { $0.insert(contents) }
    }

    /// ``check(_:password:key:)`` for a thread that may block, for bytes whose fingerprint is known.
    /// - Throws: as ``check(_:password:key:)``.
    func checkBlocking(_ bytes: Data, contents: ContentFingerprint, key: String) throws {
        if passed.withLock({ $0.contains(contents) }) { return }
        _ = try workers.runBlocking(request(nil), pdf: bytes, key: key)
        passed.withLock { $0.insert(contents) }
    }

    private func request(_ password: String?) -> PDFWorkerRequest {
        PDFWorkerRequest(operation: .probe, pageIndex: 0, password: password)
    }

    /// The last `capacity` fingerprints inserted.
    struct RecentContents {
        let capacity: Int
        private var order: [ContentFingerprint] = []
        private var members: Set<ContentFingerprint> = []

        init(capacity: Int) { self.capacity = capacity }

        func contains(_ contents: ContentFingerprint) -> Bool { members.contains(contents) }

        mutating func insert(_ contents: ContentFingerprint) {
            guard members.insert(contents).inserted else { return }
            order.append(contents)
            if order.count > capacity { members.remove(order.removeFirst()) }
        }
    }
}
