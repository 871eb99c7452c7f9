import DocumentStore
import Foundation
import GRDB
import QuireTestSupport
@testable import StoreCore
import Testing

/// How the embedded (SQLite) search index keeps its rows on disk: what it adds to its text, a store of schema v6
/// migrated, and its rows keyed by the documents' rowids through a VACUUM.
@Suite("Search index storage (SQLite)")
struct SearchIndexStorageTests {
    static let words = ["apple", "river", "stone", "cloud", "maple", "ember", "frost", "amber", "cedar", "delta"]

    /// A one-line document without a page label, as `make bench-search` fills the store with.
    static func oneLine(_ number: Int) -> IndexedDocument {
        let text = "note \(number) \(words[number % 10]) \(words[(number / 10) % 10]) unique\(number)"
        return IndexedDocument(
            id: DocumentID(rawValue: "note-\(number)")!, version: 1, status: .text,
            pages: [IndexedPage(number: 1, label: nil, text: text)])
    }

    /// A document of `count` pages of 450 words each, drawn (seeded) from 4,000 made-up words, the frequent ones
    /// more often, as in prose.
    static func prose(_ id: String, pages count: Int, seed: UInt64) -> IndexedDocument {
        var generator = SeededGenerator(seed: seed)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let vocabulary = (0..<4000).map { _ in
            String((0..<2 + generator.below(8)).map { _ in letters[generator.below(letters.count)] })
        }
        // Word k is drawn with a weight of 1/(k+1): a Zipf-like law, as words in text.
        let cumulative = (0..<vocabulary.count).reduce(into: [Double]()) {
            $0.append(($0.last ?? 0) + 1 / Double($1 + 1))
        }
        let pages = (0..<count).map { _ in
            (0..<450).map { _ in
                let draw = Double(generator.below(1 << 30)) / Double(1 << 30) * cumulative.last!
                return vocabulary[cumulative.firstIndex { $0 > draw } ?? vocabulary.count - 1]
            }.joined(separator: " ")
        }
        return SearchIndexTests.entry(id, pages: pages)
    }

    /// The bytes of the index's objects (its tables, index and FTS5 shadow tables: whole pages, as dbstat counts
    /// them, free pages not) and of the text it holds.
    static func footprint(_ catalog: Catalog) async throws -> (index: Int, text: Int) {
        try await catalog.database.read { db in
            let index = try Int.fetchOne(db, sql: "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'search%'") ?? 0
            let text = try Int.fetchOne(db, sql: "SELECT sum(length(CAST(body AS BLOB))) FROM search_pages") ?? 0
            return (index, text)
        }
    }

    /// FTS5's own check that its index says what `search_pages` holds.
    static func checkIntegrity(_ catalog: Catalog) async throws {
        try await catalog.database.write { db in
            try db.execute(sql: "INSERT INTO search_text (search_text, rank) VALUES ('integrity-check', 1)")
        }
    }

    @Test("what the index adds to the text it takes in is at most 1.5 times that text (one-line documents and prose)")
    func sizeAgainstText() async throws {
        try await CatalogPlace.with(.sqlite) { place in
            let catalog = try #require(try await place.open() as? Catalog)
            // Two equal steps, each 10,000 one-line documents and 25 pages of prose (a fifth of the text, as the real
            // PDFs in make bench-search): the second step's growth, free of the fixed cost of an empty index.
            var steps: [(index: Int, text: Int)] = []
            for step in 0..<2 {
                try await catalog.insert(SearchIndexTests.record("prose-\(step)", offset: step))
                try await catalog.index(Self.prose("prose-\(step)", pages: 25, seed: UInt64(step + 1)))
                for number in step * 10_000..<(step + 1) * 10_000 {
                    try await catalog.insert(SearchIndexTests.record("note-\(number)", offset: 10 + number))
                    try await catalog.index(Self.oneLine(number))
                }
                steps.append(try await Self.footprint(catalog))
            }
            let text = steps[1].text - steps[0].text
            let beyond = Double(steps[1].index - steps[0].index - text) / Double(text)
            #expect(beyond <= 1.5, "the index grew by \(beyond)x its text beyond it (\(steps))")
            try await Self.checkIntegrity(catalog)
            #expect(SearchIndexTests.places(try await SearchIndexTests.find(catalog, "unique4321")) == ["note-4321:1"])
        }
    }

    /// The documents, their index entries and the queries of the migration and VACUUM tests.
    static let documents: [(DocumentRecord, IndexedDocument)] = [
        (
            SearchIndexTests.record("doc-a", title: "Annual report"),
            SearchIndexTests.entry(
                "doc-a", title: "Annual report",
                pages: ["the red fox jumps", "", "a fox that is red", "blue whale songs"])
        ),
        (
            SearchIndexTests.record("doc-b", offset: 1),
            SearchIndexTests.entry("doc-b", pages: ["red herring", "whales and foxes"])
        ),
        (
            SearchIndexTests.record("doc-c", state: .dirty, offset: 2),
            SearchIndexTests.entry("doc-c", pages: ["otter river otter", "red otter"])
        ),
        (
            SearchIndexTests.record("doc-d", offset: 3),
            IndexedDocument(id: DocumentID(rawValue: "doc-d")!, version: 1, status: .encrypted)
        ),
    ]
    static let queries = ["red", "\"red fox\"", "red -fox", "herring OR whale", "whale*", "otter", "annual", "fox*"]

    /// Every query's hits, in order, with their scores, snippets, versions and positions.
    static func answers(_ index: any SearchIndex) async throws -> [[SearchHit]] {
        var answers: [[SearchHit]] = []
        for query in queries { answers.append(try await SearchIndexTests.find(index, query)) }
        answers.append(try await SearchIndexTests.find(index, "red", states: [.dirty]))
        answers.append(try await SearchIndexTests.find(index, "red", document: "doc-b"))
        return answers
    }

    @Test("a store of schema v6 migrates: its index answers every query as a store indexed anew, and keeps counting")
    func migrationFromV6() async throws {
        try await CatalogPlace.with(.sqlite) { fresh in
            let expected = try await fresh.open()
            for (record, entry) in Self.documents {
                try await expected.insert(record)
                try await expected.index(entry)
            }
            try await CatalogPlace.with(.sqlite) { place in
                // The v6 store, written as v6's Catalog.index wrote it.
                try FileManager.default.createDirectory(at: place.storeDirectory, withIntermediateDirectories: true)
                let path = place.storeDirectory.appendingPathComponent("catalog.sqlite").path
                let queue = try DatabaseQueue(path: path)
                try CatalogSchema.migrator.migrate(queue, upTo: "v6: search index")
                try await queue.write { db in
                    for (record, entry) in Self.documents {
                        try record.insert(db)
                        var rows = entry.pages.filter { !$0.text.isEmpty }.map { ($0.number, $0.label, $0.text) }
                        if let metadata = entry.metadataText { rows.insert((0, nil, metadata), at: 0) }
                        for (page, label, text) in rows {
                            try db.execute(
                                sql: "INSERT INTO search_pages (documentId, page, label, body) VALUES (?, ?, ?, ?)",
                                arguments: [entry.id.rawValue, page, label, text])
                        }
                        try db.execute(
                            sql: "INSERT INTO search_documents VALUES (?, ?, ?, ?, ?, 0)",
                            arguments: [
                                entry.id.rawValue, entry.version, entry.status.rawValue, rows.count,
                                rows.reduce(0) { $0 + $1.2.utf8.count },
                            ])
                    }
                }
                try queue.close()
                let migrated = try #require(try await place.open() as? Catalog)
                try await Self.checkIntegrity(migrated)
                #expect(try await Self.answers(migrated) == Self.answers(expected))
                #expect(try await migrated.indexStatistics() == expected.indexStatistics())
                let ids = Self.documents.map(\.0.id)
                #expect(try await migrated.indexedVersions(of: ids) == expected.indexedVersions(of: ids))
                // It goes on as any index: a document indexed again, one deleted.
                for index in [migrated, expected] as [any CatalogDatabase] {
                    var record = try #require(try await index.document(DocumentID(rawValue: "doc-b")!))
                    try await index.update(record)
                    record.version = 2
                    try await index.index(SearchIndexTests.entry("doc-b", version: 2, pages: ["narwhal and red fox"]))
                    try await index.deleteDocument(DocumentID(rawValue: "doc-a")!)
                }
                try await Self.checkIntegrity(migrated)
                #expect(try await Self.answers(migrated) == Self.answers(expected))
                #expect(try await migrated.indexStatistics() == expected.indexStatistics())
            }
        }
    }

    @Test("VACUUM keeps the documents' rowids that key the index: every query answers the same after it")
    func vacuumKeepsKeys() async throws {
        try await CatalogPlace.with(.sqlite) { place in
            let catalog = try #require(try await place.open() as? Catalog)
            // Rowids with gaps (documents deleted), which a renumbering VACUUM would close.
            for number in 0..<6 {
                try await catalog.insert(SearchIndexTests.record("gap-\(number)", offset: 10 + number))
            }
            for (record, entry) in Self.documents {
                try await catalog.insert(record)
                try await catalog.index(entry)
            }
            for number in 0..<6 where number % 2 == 0 {
                try await catalog.deleteDocument(DocumentID(rawValue: "gap-\(number)")!)
            }
            let before = try await Self.answers(catalog)
            try await catalog.database.writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
            try await Self.checkIntegrity(catalog)
            #expect(try await Self.answers(catalog) == before)
        }
    }
}
