import Foundation
import QuireTestSupport
import StoreClient
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The search index survives a crash of the service: what it had not indexed when it was killed is indexed after
/// the restart, at every document's current version.
@Suite("Search index after a crash")
struct SearchCrashTests {
    static let documents = 500

    /// Every hit of `query`, page after page.
    static func allHits(_ client: StoreClient, _ query: String) async throws -> [SearchResultPage.Hit] {
        var hits: [SearchResultPage.Hit] = []
        var cursor: String?
        repeat {
            let page = try await client.search(query, limit: 100, cursor: cursor)
            hits += page.results
            cursor = page.next
        } while cursor != nil
        return hits
    }

    /// The value of a counter on `/metrics`, 0 when absent.
    static func counter(_ service: RunningService, _ name: String) async throws -> Double {
        let (data, _) = try await URLSession.shared.data(from: URL(string: service.url + "/metrics")!)
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    @Test("SIGKILL while 500 documents are being indexed: after the restart every one is found at its current version")
    func killDuringIndexing() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        var client = try service.client()
        var ids: [String] = []
        try await withThrowingTaskGroup(of: String.self) { group in
            var next = 0
            func add() {
                let number = next
                next += 1
                group.addTask { [client] in
                    try await client.upload(pdf: TextPDF.make(["wombat document\(number) first page"])).id
                }
            }
            for _ in 0..<8 { add() }
            while let id = try await group.next() {
                ids.append(id)
                if next < Self.documents { add() }
            }
        }
        #expect(ids.count == Self.documents)
        // Killed while indexing: some documents indexed, not all (else the test says so, and still checks).
        let indexed = try await Self.counter(service, "quire_search_documents_indexed_total")
        kill(service.process.pid, SIGKILL)
        #expect(service.process.waitForExit(timeout: 30) != nil)
        #expect(indexed < Double(Self.documents), "the indexing had finished before the kill (\(indexed))")
        try await client.shutdown()

        try service.restart()
        client = try service.client()
        defer { service.stop() }
        let deadline = ContinuousClock.now + .seconds(180)
        var hits: [SearchResultPage.Hit] = []
        while ContinuousClock.now < deadline {
            hits = try await Self.allHits(client, "wombat")
            if hits.count >= Self.documents { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        var versions: [String: Int64] = [:]
        for try await summary in client.documents(pageSize: 1000) { versions[summary.id] = summary.version }
        #expect(versions.count == Self.documents)
        // No document missing, none twice, none stale.
        #expect(Set(hits.map(\.document)) == Set(ids))
        #expect(hits.count == Self.documents)
        for hit in hits where versions[hit.document] != hit.version {
            Issue.record("document \(hit.document): indexed at \(hit.version), current \(versions[hit.document] ?? -1)")
        }
        try await client.shutdown()
    }
}
