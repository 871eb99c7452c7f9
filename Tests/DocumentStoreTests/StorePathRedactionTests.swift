@testable import DocumentStore
import Foundation
import Testing

/// ``StorePathRedactionMiddleware``'s rewriting of problem details.
@Suite("Store path redaction")
struct StorePathRedactionTests {
    @Test("The store's paths go from problem details; a path that only starts like the store's stays whole")
    func redaction() {
        let middleware = StorePathRedactionMiddleware<StoreRequestContext>(
            storeDirectory: URL(fileURLWithPath: "/nonexistent-quire/store"))
        #expect(middleware.redact("/nonexistent-quire/store/files/ab12.pdf: damaged") == "ab12.pdf: damaged")
        #expect(middleware.redact("/nonexistent-quire/store is locked") == "the store directory is locked")
        #expect(
            middleware.redact("/nonexistent-quire/store/catalog.sqlite: busy")
                == "the store directory/catalog.sqlite: busy")
        #expect(
            middleware.redact("/nonexistent-quire/store-roots/a.pdf: missing")
                == "/nonexistent-quire/store-roots/a.pdf: missing")
        #expect(middleware.redact("/nonexistent-quire/stored.pdf") == "/nonexistent-quire/stored.pdf")
    }
}
