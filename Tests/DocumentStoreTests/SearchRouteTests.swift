import DocumentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /search` over the router: results, pages, filters, and every bad query a 400 problem naming its parameter
/// or an empty result — never a 500, never a database's message.
@Suite("Search route")
struct SearchRouteTests {
    /// A service whose index holds three documents, made directly (no worker involved).
    static func indexed(
        _ body: @escaping @Sendable (DocumentService, any TestClientProtocol, [String]) async throws -> Void
    )
        async throws
    {
        let service = try DocumentService()
        try await service.run { client in
            var ids: [String] = []
            for (number, pages) in [
                ["the heron <waits> & watches", "a grey heron fishes"], ["heron"], ["nothing to see"],
            ].enumerated() {
                let id = "search-doc-\(number)"
                try await service.catalog.insert(
                    DocumentRecord(
                        id: DocumentID(rawValue: id)!, files: ["/nowhere/\(id).pdf"], origin: .registered,
                        title: "Title \(number)", pageCount: pages.count, size: 10, etag: EntityTag(opaqueTag: "aa")!,
                        state: number == 1 ? .dirty : .clean, createdAt: Date(), updatedAt: Date()))
                try await service.catalog.index(
                    IndexedDocument(
                        id: DocumentID(rawValue: id)!, version: 1, status: .text,
                        pages: pages.enumerated().map { IndexedPage(number: $0 + 1, label: "L\($0 + 1)", text: $1) }))
                ids.append(id)
            }
            try await body(service, client, ids)
        }
    }

    static func get(_ client: any TestClientProtocol, _ uri: String) async throws -> (TestResponse, [String: Any]) {
        let response = try await client.execute(uri: uri, method: .get)
        return (
            response, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
        )
    }

    @Test("hits name the document, title, page, label, version and a snippet with the matches marked as HTML")
    func results() async throws {
        try await Self.indexed { _, client, ids in
            let (response, body) = try await Self.get(client, "/search?q=heron")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            let results = try #require(body["results"] as? [[String: Any]])
            #expect(results.count == 3)
            let first = try #require(results.first { $0["document"] as? String == ids[0] && $0["page"] as? Int == 1 })
            #expect(first["title"] as? String == "Title 0")
            #expect(first["label"] as? String == "L1")
            #expect(first["version"] as? Int == 1)
            #expect(first["snippet"] as? String == "the <mark>heron</mark> &lt;waits&gt; &amp; watches")
            #expect(body["next"] is NSNull)
            let (_, dirty) = try await Self.get(client, "/search?q=heron&state=dirty")
            #expect((dirty["results"] as? [[String: Any]])?.map { $0["document"] as? String } == [ids[1]])
            let (_, one) = try await Self.get(client, "/search?q=heron&document=\(ids[0])")
            #expect((one["results"] as? [[String: Any]])?.count == 2)
        }
    }

    @Test("limit and cursor walk every hit once; a cursor is bound to its query")
    func pages() async throws {
        try await Self.indexed { _, client, _ in
            let (_, all) = try await Self.get(client, "/search?q=heron")
            let expected = (all["results"] as? [[String: Any]] ?? []).map { "\($0["document"]!):\($0["page"]!)" }
            var walked: [String] = []
            var uri = "/search?q=heron&limit=1"
            var cursor: String?
            for _ in 0..<10 {
                let (response, body) = try await Self.get(client, uri)
                #expect(response.status == .ok)
                walked += (body["results"] as? [[String: Any]] ?? []).map { "\($0["document"]!):\($0["page"]!)" }
                guard let next = body["next"] as? String else { break }
                cursor = next
                let link = try #require(response.headers[HTTPField.Name("Link")!])
                uri = String(link.dropFirst().prefix { $0 != ">" })
            }
            #expect(walked == expected)
            let (other, problem) = try await Self.get(client, "/search?q=grey&limit=1&cursor=\(try #require(cursor))")
            #expect(other.status == .badRequest)
            #expect(problem["parameter"] as? String == "cursor")
        }
    }

    @Test("bad queries are a 400 naming the parameter or an empty result: never a 500, never the database's words")
    func badInput() async throws {
        try await Self.indexed { _, client, _ in
            let long = String(repeating: "heron ", count: 2000)  // 12 KB
            let cases: [(query: String, parameter: String?)] = [
                ("q=", "q"), ("", "q"), ("q=%20%20", "q"), ("q=\(long)", "q"), ("q=%22heron", nil),
                ("q=the%20and%20of", nil), ("q=%22", "q"), ("q=*", "q"), ("q=NEAR(heron%20grey)", nil),
                ("q=heron:*", nil), ("q=a:b", nil), ("q=%FF%FE", "q?"), ("q=heron%FF", nil), ("q=-heron", "q"),
                ("q=%27%3B%20DROP%20TABLE%20documents", nil), ("q=heron&q=grey", "q"), ("q=heron&limit=0", "limit"),
                ("q=heron&limit=101", "limit"), ("q=heron&limit=x", "limit"), ("q=heron&state=bogus", "state"),
                ("q=heron&document=..%2Fetc", "document"), ("q=heron&cursor=abc", "cursor"), ("q=heron&sort=x", "sort"),
                ("q=heron%00grey", nil), ("q=%5E%28%29%7B%7D", "q"),
            ]
            for (query, parameter) in cases {
                let response = try await client.execute(uri: "/search?\(query)", method: .get)
                let text = String(buffer: response.body).lowercased()
                for word in ["sql", "fts5", "tsquery", "syntax error", "select "] {
                    #expect(!text.contains(word), "\(query.prefix(60)): \(word)")
                }
                if parameter == "q?" {  // invalid UTF-8: refused, or nothing found
                    let body = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]
                    #expect(
                        response.status == .badRequest
                            ? body?["parameter"] as? String == "q"
                            : (response.status == .ok && (body?["results"] as? [Any])?.isEmpty == true),
                        "\(query)")
                } else if let parameter {
                    #expect(response.status == .badRequest, "\(query.prefix(60))")
                    #expect(response.headers[.contentType] == "application/problem+json", "\(query.prefix(60))")
                    let problem =
                        (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]
                    #expect(problem?["parameter"] as? String == parameter, "\(query.prefix(60))")
                } else {
                    #expect(response.status == .ok, "\(query.prefix(60))")
                }
            }
        }
    }
}
