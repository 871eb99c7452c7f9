import Foundation
import QuireTestSupport
import StoreClient
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Search on a three-node cluster: the owner indexes, every node answers, and a change of a file shows in another
/// node's answers within a second.
@Suite("Search on a cluster")
struct SearchClusterTests {
    /// The places (document:page) where node `client` finds `word` now.
    static func places(_ client: StoreClient, _ word: String) async throws -> [String] {
        try await client.search(word).results.map { "\($0.document):\($0.page ?? 0)" }
    }

    /// Waits (bounded by `seconds`) until node `client` finds `gone` nowhere and `found` at `place` only (nowhere
    /// when nil); how long that took, nil when it never came.
    static func settle(
        _ client: StoreClient, gone: String, found: String?, at place: String?, seconds: Double
    ) async throws -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(seconds) {
            let goneEverywhere = try await places(client, gone).isEmpty
            var foundThere = true
            if let found { foundThere = try await places(client, found) == [place!] }
            if goneEverywhere && foundThere { return ContinuousClock.now - start }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    static func pages(_ word: String) -> [String] { ["alpha one", "beta two", "gamma \(word) three"] }

    @Test(
        "a file replaced without coordination, a PUT through another node and a deletion show in a third node's search within 1 s"
    )
    func changesShowOnEveryNode() async throws {
        let cluster = try await ClusterTests.Cluster()
        do {
            let url = cluster.sandboxes[0].files.appendingPathComponent("report.pdf")
            try TextPDF.make(Self.pages("zeppelin")).write(to: url)
            let registered = try await cluster.clients[0].register(files: [url.path])
            let id = registered.id
            let asked = cluster.clients[2]
            #expect(try await Self.settle(asked, gone: "nothing", found: "zeppelin", at: "\(id):3", seconds: 20) != nil)

            let staged = cluster.sandboxes[0].files.appendingPathComponent("staged.tmp")
            try TextPDF.make(Self.pages("walrus")).write(to: staged)
            #expect(rename(staged.path, url.path) == 0)
            let uncoordinated = try await Self.settle(
                asked, gone: "zeppelin", found: "walrus", at: "\(id):3", seconds: 5)
            #expect(try #require(uncoordinated) < .seconds(1))

            let etag = try await cluster.clients[1].document(id).etag
            let started = ContinuousClock.now
            _ = try await cluster.clients[1].replaceContent(
                of: id, with: TextPDF.make(Self.pages("pelican")), ifMatch: etag)
            #expect(try await Self.settle(asked, gone: "walrus", found: "pelican", at: "\(id):3", seconds: 5) != nil)
            #expect(ContinuousClock.now - started < .seconds(1))  // from the PUT's start

            #expect(unlink(url.path) == 0)
            let deleted = try await Self.settle(asked, gone: "pelican", found: nil, at: nil, seconds: 5)
            #expect(try #require(deleted) < .seconds(1))
        } catch {
            await cluster.shutdown()
            throw error
        }
        await cluster.shutdown()
    }
}
