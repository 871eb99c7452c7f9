import DocumentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /documents` over a large catalog: pages, cursors, filters, and every malformed parameter refused.
@Suite("Listing documents")
struct ListingRouteTests {
    static let created = Date(timeIntervalSince1970: 1_790_000_000)

    /// Enters `count` documents straight into the catalog (their files need not exist to be listed), the
    /// ones whose index `dirty` accepts in the dirty state.
    static func fill(_ service: DocumentService, count: Int, dirty: (Int) -> Bool = { _ in false }) async throws {
        for index in 0..<count {
            let id = String(format: "d%05d", index)
            try await service.catalog.insert(
                DocumentRecord(
                    id: DocumentID(rawValue: id)!, files: ["/nowhere/\(id).pdf"], origin: .registered, title: id,
                    pageCount: 1, size: 10, etag: EntityTag(opaqueTag: "aa")!, state: dirty(index) ? .dirty : .clean,
                    createdAt: created.addingTimeInterval(Double(index)),
                    updatedAt: created.addingTimeInterval(Double(index))))
        }
    }

    static func ids(_ list: [String: Any]) throws -> [String] {
        try #require(list["documents"] as? [[String: Any]]).compactMap { $0["id"] as? String }
    }

    @Test("a request without limit gets the first 100 of 1,001 documents; following next lists every one once")
    func defaultPageAndWalk() async throws {
        let service = try DocumentService()
        try await Self.fill(service, count: 1_001)
        try await service.run { client in
            let first = try await client.execute(uri: "/documents", method: .get)
            #expect(first.status == .ok)
            let list = try jsonObject(first)
            var ids = try Self.ids(list)
            #expect(ids.count == 100)
            #expect(ids.first == "d00000")
            let next = try #require(list["next"] as? String)
            #expect(first.headers[HTTPField.Name("Link")!] == "</documents?limit=100&cursor=\(next)>; rel=\"next\"")
            // The rest in pages of 1,000, through the Link header.
            var link = "/documents?limit=1000&cursor=\(next)"
            var pages = 1
            while true {
                let response = try await client.execute(uri: link, method: .get)
                #expect(response.status == .ok)
                let page = try jsonObject(response)
                ids += try Self.ids(page)
                pages += 1
                guard let header = response.headers[HTTPField.Name("Link")!] else {
                    #expect(page["next"] is NSNull)
                    break
                }
                link = String(header.dropFirst().prefix { $0 != ">" })
            }
            #expect(pages == 2)
            #expect(ids == (0..<1_001).map { String(format: "d%05d", $0) })
        }
    }

    @Test("state= and updatedSince= are asked of the catalog, and a cursor carries on the same filtered walk")
    func filters() async throws {
        let service = try DocumentService()
        try await Self.fill(service, count: 300, dirty: { $0 % 7 == 3 })
        try await service.run { client in
            let dirty = (0..<300).filter { $0 % 7 == 3 }.map { String(format: "d%05d", $0) }
            var ids: [String] = []
            var uri = "/documents?state=dirty&limit=10"
            while true {
                let page = try jsonObject(try await client.execute(uri: uri, method: .get))
                ids += try Self.ids(page)
                guard let next = page["next"] as? String else { break }
                uri = "/documents?state=dirty&limit=10&cursor=\(next)"
            }
            #expect(ids == dirty)
            let both = try jsonObject(
                try await client.execute(uri: "/documents?state=dirty&state=clean&limit=1000", method: .get))
            #expect(try Self.ids(both).count == 300)
            let commas = try jsonObject(
                try await client.execute(uri: "/documents?state=dirty,damaged&limit=1000", method: .get))
            #expect(try Self.ids(commas) == dirty)
            // Entries changed at or after the 290th second: the last ten.
            let since = try jsonObject(
                try await client.execute(
                    uri: "/documents?updatedSince=2026-09-21T14:18:10Z&limit=1000", method: .get))
            #expect(try Self.ids(since) == (290..<300).map { String(format: "d%05d", $0) })
        }
    }

    @Test("limit, cursor, state and updatedSince that are malformed, forged, foreign or unknown get 400 naming them")
    func badParameters() async throws {
        let service = try DocumentService()
        try await Self.fill(service, count: 5)
        try await service.run { client in
            let page = try jsonObject(try await client.execute(uri: "/documents?limit=2", method: .get))
            let cursor = try #require(page["next"] as? String)
            var altered = Array(cursor)
            altered[3] = altered[3] == "A" ? "B" : "A"
            // Another store's cursor for the same position: its key differs.
            let other = try DocumentService()
            let foreign = other.library.listingCursors.seal(
                ListingPosition(of: try #require(try await service.catalog.document(DocumentID(rawValue: "d00001")!))),
                for: DocumentListing())
            await other.library.shutdown()
            other.directory.remove()
            let cases: [(String, String)] = [
                ("limit=0", "limit"), ("limit=1001", "limit"), ("limit=abc", "limit"), ("limit=-5", "limit"),
                ("limit=2&limit=3", "limit"), ("cursor=\(String(altered))", "cursor"),
                ("cursor=\(cursor.prefix(cursor.count - 3))", "cursor"), ("cursor=\(foreign)", "cursor"),
                ("cursor=not-a-cursor", "cursor"), ("cursor=\(String(repeating: "A", count: 300)).AA", "cursor"),
                // A cursor of the unfiltered walk, used for another.
                ("cursor=\(cursor)&state=dirty", "cursor"), ("state=dirtyish", "state"), ("state=", "state"),
                ("updatedSince=yesterday", "updatedSince"), ("updatedSince=2026-13-01T00:00:00Z", "updatedSince"),
                ("states=dirty", "states"),
            ]
            for (query, parameter) in cases {
                let response = try await client.execute(uri: "/documents?\(query)", method: .get)
                #expect(response.status == .badRequest, "\(query)")
                #expect(response.headers[.contentType] == "application/problem+json", "\(query)")
                let problem = try jsonObject(response)
                #expect(problem["parameter"] as? String == parameter, "\(query)")
                #expect(problem["type"] as? String == "/problems/invalid-parameter", "\(query)")
            }
            // The unaltered cursor still works after all that.
            let rest = try jsonObject(try await client.execute(uri: "/documents?cursor=\(cursor)", method: .get))
            #expect(try Self.ids(rest) == ["d00002", "d00003", "d00004"])
            #expect(rest["next"] is NSNull)
        }
    }
}
