#if DEBUG  // @testable needs a debug build (or -enable-testing)
import DocumentStore
import Foundation
import HummingbirdTesting
import Testing

@testable import StoreCore

/// An open document's cached answers never outlive a change they did not see.
@Suite("Answer cache")
struct AnswerCacheTests {
    @Test("an info built from a record read before an invalidation is not kept; one built after it is")
    func answersBuiltBeforeAnInvalidationAreDropped() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let created = try await client.upload("one-page.pdf")
            let text = try #require(try jsonObject(created)["id"] as? String)
            let id = try #require(DocumentID(rawValue: text))
            _ = try await client.execute(uri: "/documents/\(id.rawValue)", method: .get)
            let open = try #require(service.library.state.withLock { $0.open[id] })
            let (info, tag) = try #require(open.cachedInfo)
            // A request reads the record (generation g), another node's change is notified meanwhile, then the
            // request keeps what it built: it must not be kept.
            let generation = open.answersGeneration
            open.invalidateInfo()
            open.cacheInfo(info, tag: tag, builtAt: generation)
            #expect(open.cachedInfo == nil)
            open.cacheInfo(info, tag: tag, builtAt: open.answersGeneration)
            #expect(open.cachedInfo?.1 == tag)
        }
    }
}
#endif
