import DocumentStore
import Foundation
import QuireTestSupport
import Testing

import StoreCore

/// Listing a large catalog page by page (keyset pagination over the listing indexes), on both engines: the order,
/// the filters, and walks that stay true while documents come and go.
@Suite("Catalog listings")
struct CatalogListingTests {
    static let created = Date(timeIntervalSince1970: 1_790_000_000)

    static func record(
        _ id: String, createdAt: Date = created, updatedAt: Date? = nil, state: DocumentState = .clean
    ) -> DocumentRecord {
        DocumentRecord(
            id: DocumentID(rawValue: id)!, files: ["/srv/pdf/\(id).pdf"], origin: .registered, title: id,
            pageCount: 1, size: 1, etag: EntityTag(opaqueTag: "aa")!, state: state, createdAt: createdAt,
            updatedAt: updatedAt ?? createdAt)
    }

    /// Every page of a walk, following `next` until it is nil (at most `maxPages` of them).
    static func walk(
        _ catalog: any CatalogDatabase, _ listing: DocumentListing, maxPages: Int = 10_000,
        between: (Int) async throws -> Void = { _ in }
    ) async throws -> (documents: [DocumentRecord], pages: Int) {
        var listing = listing
        var documents: [DocumentRecord] = []
        var pages = 0
        while pages < maxPages {
            let page = try await catalog.documents(listing)
            pages += 1
            #expect(page.documents.count <= listing.limit)
            documents += page.documents
            guard let next = page.next else { return (documents, pages) }
            listing.after = next
            try await between(pages)
        }
        Issue.record("the walk did not end within \(maxPages) pages")
        return (documents, pages)
    }

    @Test("pages follow each other in listing order, ties by id in byte order", arguments: CatalogEngine.allCases)
    func order(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            // Same instant: byte order, which differs from a locale's ("a-b" before "ab" before "B" in en_US).
            let ids = ["ab", "B", "a-b", "A_", "a", "Z9", "z"]
            for id in ids { try await catalog.insert(Self.record(id)) }
            try await catalog.insert(Self.record("later", createdAt: Self.created.addingTimeInterval(1)))
            try await catalog.insert(Self.record("earlier", createdAt: Self.created.addingTimeInterval(-1)))
            let expected = ["earlier"] + ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } + ["later"]
            for limit in [1, 2, 3, 9, 100] {
                let (documents, pages) = try await Self.walk(catalog, DocumentListing(limit: limit))
                #expect(documents.map(\.id.rawValue) == expected, "limit \(limit)")
                // One more than the page holds tells whether another follows: no empty last page.
                #expect(pages == (expected.count + limit - 1) / limit)
            }
            let first = try await catalog.documents(DocumentListing(limit: 3))
            #expect(first.next == ListingPosition(of: first.documents[2]))
            let all = try await catalog.documents(DocumentListing(limit: 1_000))
            #expect(all.next == nil)
            #expect(all.documents == (try await catalog.documents()))
        }
    }

    @Test("a state filter lists those states only, one index walk per state merged", arguments: CatalogEngine.allCases)
    func states(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            let states: [DocumentState] = [.clean, .dirty, .conflict(.modification), .deleted, .damaged]
            var expected: [DocumentState.Name: [String]] = [:]
            for index in 0..<60 {
                let state = states[(index * 7) % states.count]
                let id = String(format: "d%03d", index)
                try await catalog.insert(
                    Self.record(id, createdAt: Self.created.addingTimeInterval(Double(index)), state: state))
                expected[DocumentState.Name(rawValue: state.name)!, default: []].append(id)
            }
            for wanted: Set<DocumentState.Name> in [[.dirty], [.conflict, .damaged], Set(DocumentState.Name.allCases)] {
                let (documents, _) = try await Self.walk(catalog, DocumentListing(states: wanted, limit: 5))
                let ids = wanted.flatMap { expected[$0] ?? [] }.sorted()
                #expect(documents.map(\.id.rawValue) == ids, "\(wanted)")
            }
        }
    }

    @Test(
        "updatedSince lists the documents changed since, examining a bounded number of entries per page",
        arguments: CatalogEngine.allCases)
    func updatedSince(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            let since = Self.created.addingTimeInterval(3_600)
            var changed: [String] = []
            for index in 0..<240 {
                let id = String(format: "d%03d", index)
                let recent = index % 37 == 5
                if recent { changed.append(id) }
                try await catalog.insert(
                    Self.record(
                        id, createdAt: Self.created.addingTimeInterval(Double(index)),
                        updatedAt: recent ? since.addingTimeInterval(Double(index)) : nil,
                        state: index % 2 == 0 ? .clean : .dirty))
            }
            var listing = DocumentListing(updatedSince: since, limit: 3)
            listing.examined = 50
            let (documents, pages) = try await Self.walk(catalog, listing)
            #expect(documents.map(\.id.rawValue) == changed)
            // 240 entries, 50 examined a page: about five pages, some of them empty, whatever the matches.
            #expect(pages >= 5 && pages <= 8)
            listing.states = [.dirty]
            let dirty = try await Self.walk(catalog, listing).documents
            #expect(dirty.map(\.id.rawValue) == changed.filter { Int($0.dropFirst())! % 2 == 1 })
        }
    }

    @Test(
        "a walk under concurrent inserts and deletes lists each document at most once, and every one that existed throughout exactly once",
        arguments: CatalogEngine.allCases)
    func walkUnderChurn(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            var random = SeededGenerator(seed: engine == .sqlite ? 28 : 29)
            var present: [String: DocumentState.Name] = [:]
            var next = 0
            func insert() async throws {
                let id = "d\(next)"
                next += 1
                let state: DocumentState = Bool.random(using: &random) ? .clean : .dirty
                // Anywhere in the order: before the walk's position as well as after it.
                let offset = Double(Int.random(in: 0..<100, using: &random))
                try await catalog.insert(
                    Self.record(id, createdAt: Self.created.addingTimeInterval(offset), state: state))
                present[id] = DocumentState.Name(rawValue: state.name)!
            }
            for _ in 0..<150 { try await insert() }
            for states: Set<DocumentState.Name> in [[], [.dirty]] {
                let before = present
                var deleted = Set<String>()
                var everListed = Set(present.keys)
                let (documents, _) = try await Self.walk(catalog, DocumentListing(states: states, limit: 7)) { _ in
                    for _ in 0..<3 { try await insert() }
                    everListed.formUnion(present.keys)
                    for _ in 0..<2 {
                        guard let victim = present.keys.sorted().randomElement(using: &random) else { break }
                        try await catalog.deleteDocument(DocumentID(rawValue: victim)!)
                        present[victim] = nil
                        deleted.insert(victim)
                    }
                }
                let ids = documents.map(\.id.rawValue)
                #expect(Set(ids).count == ids.count, "a document listed twice")
                let positions = documents.map(ListingPosition.init(of:))
                #expect(positions == positions.sorted())
                let throughout = Set(before.filter { states.isEmpty || states.contains($0.value) }.keys)
                    .subtracting(deleted)
                #expect(throughout.isSubset(of: Set(ids)), "missing: \(throughout.subtracting(Set(ids)).sorted())")
                #expect(Set(ids).isSubset(of: everListed))
                #expect(documents.allSatisfy { states.isEmpty || states.contains(DocumentState.Name(rawValue: $0.state.name)!) })
            }
        }
    }
    @Test(
        "the file index finds a file's documents, and the directories follow inserts, moves and deletions",
        arguments: CatalogEngine.allCases)
    func fileIndex(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            func document(_ id: String, _ files: [String]) -> DocumentRecord {
                var record = Self.record(id)
                record.files = files
                return record
            }
            try await catalog.insert(document("one", ["/srv/a/1.pdf", "/srv/b/1-appendix.pdf"]))
            try await catalog.insert(document("two", ["/srv/a/2.pdf"]))
            #expect(try await catalog.documentDirectories() == ["/srv/a", "/srv/b"])
            #expect(try await catalog.documents(holdingAnyOf: ["/srv/b/1-appendix.pdf"]).map(\.id.rawValue) == ["one"])
            let both = try await catalog.documents(holdingAnyOf: ["/srv/a/2.pdf", "/srv/a/1.pdf", "/srv/none.pdf"])
            #expect(Set(both.map(\.id.rawValue)) == ["one", "two"])
            #expect(try await catalog.documents(holdingAnyOf: ["/srv/a"]).isEmpty)
            #expect(try await catalog.documents(holdingAnyOf: []).isEmpty)
            // A move: the old path no longer finds it, the new one does; the emptied directory goes.
            var moved = document("one", ["/srv/a/1.pdf", "/srv/c/renamed.pdf"])
            moved.version = 1
            try await catalog.update(moved)
            #expect(try await catalog.documents(holdingAnyOf: ["/srv/b/1-appendix.pdf"]).isEmpty)
            #expect(try await catalog.documents(holdingAnyOf: ["/srv/c/renamed.pdf"]).map(\.id.rawValue) == ["one"])
            #expect(try await catalog.documentDirectories() == ["/srv/a", "/srv/c"])
            // An update that keeps the files changes nothing in the index.
            var retitled = moved
            retitled.title = "retitled"
            try await catalog.update(retitled)
            #expect(try await catalog.documentDirectories() == ["/srv/a", "/srv/c"])
            try await catalog.deleteDocument(DocumentID(rawValue: "two")!)
            #expect(try await catalog.documentDirectories() == ["/srv/a", "/srv/c"])
            try await catalog.deleteDocument(DocumentID(rawValue: "one")!)
            #expect(try await catalog.documentDirectories() == [])
            #expect(try await catalog.documents(holdingAnyOf: ["/srv/a/1.pdf"]).isEmpty)
        }
    }
}
