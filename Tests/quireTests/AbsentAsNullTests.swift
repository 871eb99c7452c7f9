import Foundation
import Testing

import QuireAPICoding
import StoreClient

/// ``AbsentAsNull``: the generated types leave nil members out; wrapped, they write them as null, as openapi.yaml
/// requires of `SearchResults.next`, `SearchHit.page` and the like.
@Suite("AbsentAsNull")
struct AbsentAsNullTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test("nil members at every depth are null, present ones as they were; the result decodes back to the same value")
    func nullsAtEveryDepth() throws {
        let page = SearchResultPage(
            results: [
                .init(document: "d1", title: nil, page: nil, label: nil, snippet: "a <mark>b</mark>", version: 3),
                .init(document: "d2", title: "T", page: 2, label: "ii", snippet: "c", version: 1),
            ],
            next: nil)
        let plain = try Self.json(page)
        #expect(!plain.contains("null"), "the generated type leaves nil members out: \(plain)")
        let wrapped = try Self.json(AbsentAsNull(page))
        #expect(
            wrapped
                == #"{"next":null,"results":[{"document":"d1","label":null,"page":null,"snippet":"a <mark>b</mark>","#
                + #""title":null,"version":3},{"document":"d2","label":"ii","page":2,"snippet":"c","title":"T","version":1}]}"#
        )
        #expect(try JSONDecoder().decode(SearchResultPage.self, from: Data(wrapped.utf8)) == page)
    }

    @Test("dates keep the encoder's strategy, inside arrays too, or are written as datesAs says")
    func datesKeepTheirStrategy() throws {
        let started = Date(timeIntervalSince1970: 1_790_000_000)
        let nodes = ServiceNodes(
            node: "n1", cluster: false,
            nodes: [
                .init(
                    id: "n1", address: "127.0.0.1:8080", version: "1.0", startedAt: started, lastHeartbeat: started,
                    live: true, openDocuments: 0, ownedDocuments: 0)
            ])
        let wrapped = try Self.json(AbsentAsNull(nodes))
        #expect(wrapped.contains(#""startedAt":"2026-09-21T"#), "\(wrapped)")
        #expect(wrapped == (try Self.json(nodes)), "nothing absent: the same JSON as without the wrapper")
        let written = try Self.json(AbsentAsNull(nodes, datesAs: { $0 == started ? "started" : "other" }))
        #expect(written.contains(#""lastHeartbeat":"started","#) && written.contains(#""startedAt":"started""#))
    }

    /// A value whose members are strings, numbers and arrays of them, optional or not. Its synthesized encoding
    /// writes nil members through `encodeIfPresent` and arrays through the generic path, as the generated types do.
    struct Primitives: Encodable {
        var name: String?
        var count: Int?
        var size: Int64?
        var ratio: Double?
        var flag: Bool?
        var tags: [String]
        var sizes: [Int64?]
    }

    @Test("strings, numbers and Booleans are written as they are, present or absent, and in arrays")
    func primitives() throws {
        let present = Primitives(
            name: "a/b", count: 2, size: 1 << 40, ratio: 0.5, flag: true, tags: ["x", "y"], sizes: [1, nil])
        #expect(
            try Self.json(AbsentAsNull(present))
                == #"{"count":2,"flag":true,"name":"a/b","ratio":0.5,"size":1099511627776,"sizes":[1,null],"tags":["x","y"]}"#)
        let absent = Primitives(tags: [], sizes: [])
        #expect(
            try Self.json(AbsentAsNull(absent))
                == #"{"count":null,"flag":null,"name":null,"ratio":null,"size":null,"sizes":[],"tags":[]}"#)
    }

    @Test("with nullMembers, only the absent members named are null; the others are left out, at every depth")
    func onlyTheNamedMembersAreNull() throws {
        let absent = Primitives(tags: [], sizes: [])
        #expect(
            try Self.json(AbsentAsNull(absent, nullMembers: ["count", "flag"]))
                == #"{"count":null,"flag":null,"sizes":[],"tags":[]}"#)
        let page = SearchResultPage(
            results: [.init(document: "d1", title: nil, page: nil, label: nil, snippet: "s", version: 3)], next: nil)
        #expect(
            try Self.json(AbsentAsNull(page, nullMembers: ["page"]))
                == #"{"results":[{"document":"d1","page":null,"snippet":"s","version":3}]}"#)
    }
}
