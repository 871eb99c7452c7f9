import DocumentStore
import Foundation
import Testing

/// The conformance suite of the full-text index: every test runs against SQLite FTS5 (``Catalog``) and PostgreSQL
/// full-text search (``PostgresCatalog``, on the tests' private server), and expects the same answers of both.
@Suite("Search index")
struct SearchIndexTests {
    static let created = Date(timeIntervalSince1970: 1_790_000_000)

    static func record(_ id: String, title: String? = nil, state: DocumentState = .clean, offset: Int = 0)
        -> DocumentRecord
    {
        DocumentRecord(
            id: DocumentID(rawValue: id)!, files: ["/srv/pdf/\(id).pdf"], origin: .registered, title: title,
            pageCount: 3, size: 1000, etag: EntityTag(opaqueTag: "aa")!, state: state,
            createdAt: created.addingTimeInterval(Double(offset)), updatedAt: created)
    }

    static func entry(_ id: String, version: Int64 = 1, title: String? = nil, pages: [String]) -> IndexedDocument {
        IndexedDocument(
            id: DocumentID(rawValue: id)!, version: version, status: .text, title: title,
            pages: pages.enumerated().map { IndexedPage(number: $0 + 1, label: "p-\($0 + 1)", text: $1) })
    }

    static func find(
        _ index: any SearchIndex, _ text: String, states: Set<DocumentState.Name> = [], document: String? = nil
    )
        async throws -> [SearchHit]
    {
        try await index.search(
            SearchRequest(
                query: try SearchQuery(parsing: text), states: states,
                document: document.map { DocumentID(rawValue: $0)! },
                limit: SearchRequest.maximumLimit))
    }

    /// The hits as "document:page" (page 0 for the metadata), in order.
    static func places(_ hits: [SearchHit]) -> [String] { hits.map { "\($0.documentID):\($0.page ?? 0)" } }

    @Test(
        "a word of page 3 is found there, with its label, the document's title and version, and a marked snippet",
        arguments: CatalogEngine.allCases)
    func pageHit(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            try await catalog.insert(Self.record("doc-1", title: "Annual report"))
            let written = try await catalog.index(
                Self.entry(
                    "doc-1", title: "Annual report",
                    pages: ["Nothing here.", "Still nothing.", "The quarterly zeppelin budget grew again."]))
            #expect(written)
            let hits = try await Self.find(catalog, "zeppelin")
            #expect(Self.places(hits) == ["doc-1:3"])
            let hit = try #require(hits.first)
            #expect(hit.label == "p-3")
            #expect(hit.title == "Annual report")
            #expect(hit.version == 1)
            #expect(hit.snippet.contains(SearchHit.markStart + "zeppelin" + SearchHit.markEnd))
            // The metadata is page 0 (a hit without a page).
            #expect(Self.places(try await Self.find(catalog, "annual")) == ["doc-1:0"])
            #expect(try await Self.find(catalog, "absent").isEmpty)
            #expect(try await catalog.indexStatistics() == SearchIndexStatistics(documents: 1, pages: 4, textBytes: 81))
        }
    }

    @Test(
        "indexing a document again replaces its text: the removed word is gone, the added one found",
        arguments: CatalogEngine.allCases)
    func reindex(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            try await catalog.insert(Self.record("doc-1"))
            try await catalog.index(Self.entry("doc-1", pages: ["one", "two", "walrus"]))
            var record = try #require(try await catalog.document(DocumentID(rawValue: "doc-1")!))
            try await catalog.update(record)
            record.version = 2
            #expect(try await catalog.index(Self.entry("doc-1", version: 2, pages: ["one", "narwhal"])))
            #expect(try await Self.find(catalog, "walrus").isEmpty)
            #expect(Self.places(try await Self.find(catalog, "narwhal")) == ["doc-1:2"])
            #expect(try await catalog.indexedVersions(of: [record.id]) == [record.id: 2])
        }
    }

    @Test(
        "an older version never replaces a newer one, and a document not in the catalog (or deleted) is not indexed",
        arguments: CatalogEngine.allCases)
    func versionsAndMissing(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            try await catalog.insert(Self.record("doc-1"))
            try await catalog.insert(Self.record("gone", state: .deleted))
            #expect(try await catalog.index(Self.entry("doc-1", version: 3, pages: ["newer"])))
            #expect(try await !catalog.index(Self.entry("doc-1", version: 2, pages: ["older"])))
            #expect(try await Self.find(catalog, "older").isEmpty)
            #expect(Self.places(try await Self.find(catalog, "newer")) == ["doc-1:1"])
            #expect(try await !catalog.index(Self.entry("nowhere", pages: ["stray"])))
            #expect(try await !catalog.index(Self.entry("gone", pages: ["stray"])))
            #expect(try await Self.find(catalog, "stray").isEmpty)
        }
    }

    @Test(
        "a document leaving the catalog leaves the index in the same transaction; removal is explicit too",
        arguments: CatalogEngine.allCases)
    func deletion(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            try await catalog.insert(Self.record("doc-1"))
            try await catalog.insert(Self.record("doc-2", offset: 1))
            try await catalog.index(Self.entry("doc-1", pages: ["pelican"]))
            try await catalog.index(Self.entry("doc-2", pages: ["pelican"]))
            try await catalog.deleteDocument(DocumentID(rawValue: "doc-1")!)
            #expect(Self.places(try await Self.find(catalog, "pelican")) == ["doc-2:1"])
            try await catalog.removeFromIndex(DocumentID(rawValue: "doc-2")!)
            #expect(try await Self.find(catalog, "pelican").isEmpty)
            #expect(try await catalog.indexStatistics().documents == 0)
        }
    }

    @Test(
        "words, phrases, exclusions, OR and prefixes select the same pages in both engines",
        arguments: CatalogEngine.allCases)
    func querySyntax(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            try await catalog.insert(Self.record("doc-a"))
            try await catalog.index(
                Self.entry(
                    "doc-a",
                    pages: [
                        "the red fox jumps", "a fox that is red", "blue whale songs", "whales and foxes", "red herring",
                    ]))
            #expect(Set(Self.places(try await Self.find(catalog, "red fox"))) == ["doc-a:1", "doc-a:2"])
            #expect(Self.places(try await Self.find(catalog, "\"red fox\"")) == ["doc-a:1"])
            #expect(Self.places(try await Self.find(catalog, "red -fox")) == ["doc-a:5"])
            #expect(Set(Self.places(try await Self.find(catalog, "herring OR whale"))) == ["doc-a:3", "doc-a:5"])
            #expect(Set(Self.places(try await Self.find(catalog, "whale*"))) == ["doc-a:3", "doc-a:4"])
            #expect(Set(Self.places(try await Self.find(catalog, "FOX*"))) == ["doc-a:1", "doc-a:2", "doc-a:4"])
            #expect(Self.places(try await Self.find(catalog, "red -\"red fox\" -herring")) == ["doc-a:2"])
        }
    }

    @Test(
        "FTS syntax, NEAR, unbalanced quotes and odd scripts are text: never an engine error",
        arguments: CatalogEngine.allCases)
    func hostileQueries(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            try await catalog.insert(Self.record("doc-a"))
            try await catalog.index(Self.entry("doc-a", pages: ["near the column: a b c", "ünïcödé 日本語 text"]))
            let queries = [
                "NEAR(a b)", "near", "column:a", "\"unbalanced", "a\"b\"c", "*", "a*b*", "^a", "(a OR", "a AND NOT b",
                "'; DROP TABLE documents; --", "a:*", "!a", "a & b | c", "a <-> b", "{a b}", "+a", "ünïcödé", "日本語",
                "a\\b", "\u{0}a", "OR OR a OR", "-a b", "\"\"", "--a b",
            ]
            for text in queries {
                do {
                    _ = try await Self.find(catalog, text)
                } catch is SearchQuery.Problem {
                    // Nothing to look for ("*", an empty phrase): refused before any engine sees it.
                }
            }
            #expect(Self.places(try await Self.find(catalog, "NEAR(the column)")) == ["doc-a:1"])
            #expect(Self.places(try await Self.find(catalog, "column:")) == ["doc-a:1"])
            #expect(Self.places(try await Self.find(catalog, "\"the column")) == ["doc-a:1"])
        }
    }

    @Test(
        "state and document filters, and pages after a position that list every hit once, best first",
        arguments: CatalogEngine.allCases)
    func filtersAndPages(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            for number in 0..<12 {
                let id = "doc-\(number)"
                try await catalog.insert(Self.record(id, state: number % 3 == 0 ? .dirty : .clean, offset: number))
                try await catalog.index(
                    Self.entry(
                        id,
                        pages: [
                            String(repeating: "otter ", count: 1 + number % 4) + "river", "otter", "nothing",
                        ]))
            }
            let all = try await Self.find(catalog, "otter")
            #expect(all.count == 24)
            #expect(
                all.map(\.position)
                    == all.map(\.position).sorted { lhs, rhs in
                        (lhs.score, lhs.documentID, lhs.page) < (rhs.score, rhs.documentID, rhs.page)
                    })
            var walked: [SearchHit] = []
            var request = SearchRequest(query: try SearchQuery(parsing: "otter"), limit: 5)
            while true {
                let page = try await catalog.search(request)
                walked += page
                guard page.count == 5 else { break }
                request.after = page.last!.position
            }
            #expect(Self.places(walked) == Self.places(all))
            let dirty = try await Self.find(catalog, "otter", states: [.dirty])
            #expect(Set(dirty.map(\.documentID.rawValue)) == ["doc-0", "doc-3", "doc-6", "doc-9"])
            #expect(Self.places(try await Self.find(catalog, "river", document: "doc-7")) == ["doc-7:1"])
        }
    }

    @Test(
        "the documents the index does not reflect come in bounded steps of the listing order",
        arguments: CatalogEngine.allCases)
    func documentsToIndex(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            for number in 0..<7 {
                try await catalog.insert(Self.record("doc-\(number)", offset: number))
            }
            try await catalog.index(Self.entry("doc-1", pages: ["x"]))
            try await catalog.index(Self.entry("doc-4", pages: ["x"]))
            // doc-4 changes after it was indexed: its version is 2 now, the index's 1.
            try await catalog.update(try #require(try await catalog.document(DocumentID(rawValue: "doc-4")!)))
            var found: [String] = []
            var position: ListingPosition?
            var steps = 0
            repeat {
                let step = try await catalog.documentsToIndex(after: position, limit: 3)
                #expect(step.documents.count <= 3)
                found += step.documents.map(\.id.rawValue)
                position = step.next
                steps += 1
            } while position != nil && steps < 10
            #expect(found == ["doc-0", "doc-2", "doc-3", "doc-4", "doc-5", "doc-6"])
            #expect(steps == 3)
        }
    }
}
