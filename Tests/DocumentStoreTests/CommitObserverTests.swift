import DocumentStore
import Foundation
import Synchronization
import Testing

/// The SQLite catalog tells the live feed of every commit, however many.
@Suite("Commit observer")
struct CommitObserverTests {
    @Test("60,000 events reach the commit observer, and the observer's calls do not deepen (was: a stack overflow after about 35,000 on the writer's thread)")
    func manyCommits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let catalog = try Catalog(storeDirectory: directory.url.appendingPathComponent("store"))
        defer { try? catalog.close() }
        let told = Mutex(0)
        catalog.observeCommittedEvents { _ in told.withLock { $0 += 1 } }
        let id = DocumentID(rawValue: "doc")!
        for _ in 0..<60_000 {
            try await catalog.append(StoreEvent(type: .changed, documentID: id, etag: nil, at: Date()))
        }
        #expect(told.withLock { $0 } == 60_000)
    }
}
