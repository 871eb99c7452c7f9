import DocumentStore
import FileCoordination
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import QuireTestSupport
import Testing

@testable import StoreCore

#if canImport(Glibc)
    import Glibc
#endif

/// The search index follows the documents' files, whoever changes them: within a second of a change the words it
/// removed are no longer found and the words it added are.
@Suite("Search coherence with the files")
struct SearchCoherenceTests {
    /// The pages of a three-page document whose page 3 has `word`.
    static func pages(_ word: String) -> [String] {
        ["alpha one", "beta two", "gamma \(word) three"]
    }

    /// The places (document:page) where `word` is found now.
    static func places(_ service: DocumentService, _ word: String) async throws -> [String] {
        try await service.catalog.search(SearchRequest(query: try SearchQuery(parsing: word))).map {
            "\($0.documentID):\($0.page ?? 0)"
        }
    }

    /// Waits (bounded by `seconds`) until `gone` is found nowhere and `found` is found at `place` (nil: nowhere);
    /// returns how long that took, nil when it never came.
    static func settle(
        _ service: DocumentService, gone: String, found: String?, at place: String?, seconds: Double
    ) async throws -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(seconds) {
            let goneEverywhere = try await places(service, gone).isEmpty
            var foundThere = true
            if let found { foundThere = try await places(service, found) == [place!] }
            if goneEverywhere && foundThere { return ContinuousClock.now - start }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Runs `body` with the service's indexing running, as `quire serve` runs it.
    static func withIndexing(
        _ service: DocumentService, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        try await service.run { client in
            let indexing = Task { await service.library.runIndexing() }
            defer { indexing.cancel() }
            try await body(client)
        }
    }

    @Test("An uncoordinated replacement, a coordinated write, a PUT and a deletion each show in search within 1 s")
    func changesShowWithinASecond() async throws {
        let service = try DocumentService()
        try await Self.withIndexing(service) { client in
            let url = service.root.appendingPathComponent("report.pdf")
            try TextPDF.make(Self.pages("zeppelin")).write(to: url)
            let response = try await client.send("/documents", .post, json: #"{"files": ["\#(url.path)"]}"#)
            #expect(response.status == .created)
            let id = try #require(try jsonObject(response)["id"] as? String)
            try CoordinationService.synchronize()
            #expect(
                try await Self.settle(service, gone: "nothing", found: "zeppelin", at: "\(id):3", seconds: 10) != nil)

            // A program that does not coordinate replaces the file (written aside, renamed over it, as editors do).
            let staged = service.root.appendingPathComponent("staged.tmp")
            try TextPDF.make(Self.pages("walrus")).write(to: staged)
            #expect(rename(staged.path, url.path) == 0)
            let uncoordinated = try await Self.settle(
                service, gone: "zeppelin", found: "walrus", at: "\(id):3", seconds: 5)
            #expect(try #require(uncoordinated) < .seconds(1))

            // A coordinated write.
            let narwhal = TextPDF.make(Self.pages("narwhal"))
            try FileCoordinator().coordinate(writingItemAt: url) { url in try narwhal.write(to: url) }
            let coordinated = try await Self.settle(
                service, gone: "walrus", found: "narwhal", at: "\(id):3", seconds: 5)
            #expect(try #require(coordinated) < .seconds(1))

            // PUT through the service.
            let info = try await client.execute(uri: "/documents/\(id)", method: .get)
            var headers: HTTPFields = [.contentType: "application/pdf"]
            let tag = try #require(info.headers[.eTag])
            headers[.ifMatch] = tag
            let started = ContinuousClock.now
            let put = try await client.execute(
                uri: "/documents/\(id)/content", method: .put, headers: headers,
                body: ByteBuffer(bytes: TextPDF.make(Self.pages("pelican"))))
            #expect(put.status == .ok)
            #expect(try await Self.settle(service, gone: "narwhal", found: "pelican", at: "\(id):3", seconds: 5) != nil)
            #expect(ContinuousClock.now - started < .seconds(1))  // from the PUT's start

            // The file deleted by another program: its words are found nowhere.
            #expect(unlink(url.path) == 0)
            let deleted = try await Self.settle(service, gone: "pelican", found: nil, at: nil, seconds: 5)
            #expect(try #require(deleted) < .seconds(1))
            #expect(try await Self.places(service, "alpha").isEmpty)
        }
    }

    @Test("DELETE of a document takes it out of the index in the same transaction")
    func deleteRoute() async throws {
        let service = try DocumentService()
        try await Self.withIndexing(service) { client in
            let created = try await client.execute(
                uri: "/documents", method: .post, headers: [.contentType: "application/pdf"],
                body: ByteBuffer(bytes: TextPDF.make(Self.pages("quokka"))))
            let id = try #require(try jsonObject(created)["id"] as? String)
            #expect(try await Self.settle(service, gone: "nothing", found: "quokka", at: "\(id):3", seconds: 10) != nil)
            let info = try await client.execute(uri: "/documents/\(id)", method: .get)
            let deleted = try await client.execute(
                uri: "/documents/\(id)", method: .delete, headers: [.ifMatch: try #require(info.headers[.eTag])])
            #expect(deleted.status == .noContent)
            #expect(try await Self.places(service, "quokka").isEmpty)
        }
    }

    /// From now on, counts each time the index writes a document's row (a table and trigger of the test's own).
    static func countIndexWrites(_ service: DocumentService) async throws {
        try await service.catalog.database.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE test_index_writes (document INTEGER NOT NULL);
                    CREATE TRIGGER test_index_written AFTER INSERT ON search_documents BEGIN
                        INSERT INTO test_index_writes (document) VALUES (NEW.document);
                    END;
                    """)
        }
    }

    /// The status of each document the index holds, and how often the index wrote it since ``countIndexWrites(_:)``.
    static func indexed(_ service: DocumentService) async throws -> [String: (status: String, writes: Int)] {
        try await service.catalog.database.read { db in
            var entries: [String: (status: String, writes: Int)] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id,
                        CASE s.status WHEN 0 THEN 'text' WHEN 1 THEN 'encrypted' WHEN 2 THEN 'damaged'
                            ELSE 'failed' END,
                        (SELECT count(*) FROM test_index_writes w WHERE w.document = s.document)
                    FROM search_documents s JOIN documents d ON d.rowid = s.document
                    """)
            {
                entries[row[0]] = (row[1], row[2])
            }
            return entries
        }
    }

    @Test("An encrypted document without its password and a damaged one are indexed as such, once: no text, no retry")
    func encryptedAndDamaged() async throws {
        let service = try DocumentService()
        try await Self.countIndexWrites(service)
        try await Self.withIndexing(service) { client in
            let encrypted = try jsonObject(try await client.upload("encrypted-aes256.pdf", password: "userpw"))
            let locked = try #require(encrypted["id"] as? String)
            let url = service.root.appendingPathComponent("broken.pdf")
            try TextPDF.make(Self.pages("ibis")).write(to: url)
            let response = try await client.send("/documents", .post, json: #"{"files": ["\#(url.path)"]}"#)
            let broken = try #require(try jsonObject(response)["id"] as? String)
            try CoordinationService.synchronize()
            #expect(try await Self.settle(service, gone: "nothing", found: "ibis", at: "\(broken):3", seconds: 10) != nil)
            try Data("not a PDF at all".utf8).write(to: url)  // another program breaks it
            #expect(try await Self.settle(service, gone: "ibis", found: nil, at: nil, seconds: 5) != nil)
            var entries: [String: (status: String, writes: Int)] = [:]
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                entries = try await Self.indexed(service)
                if entries[locked]?.status == "encrypted", entries[broken]?.status == "damaged" { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(entries[locked]?.status == "encrypted")
            #expect(entries[broken]?.status == "damaged")
            for id in [locked, broken] {
                let record = try #require(try await service.catalog.document(DocumentID(rawValue: id)!))
                #expect(try await service.catalog.indexedVersions(of: [record.id])[record.id] == record.version)
            }
            try await Task.sleep(for: .milliseconds(500))  // a negative check: no retry may come
            let later = try await Self.indexed(service)
            #expect(later[locked]?.writes == entries[locked]?.writes)
            #expect(later[broken]?.writes == entries[broken]?.writes)
        }
    }

    @Test("On start the index catches up, in bounded steps, with documents it never saw and those changed since")
    func catchUpOnStart() async throws {
        let service = try DocumentService()
        try await service.run { client in
            // Documents made while nothing indexes (as on a node that was down).
            var ids: [String] = []
            for number in 0..<12 {
                let created = try await client.execute(
                    uri: "/documents", method: .post, headers: [.contentType: "application/pdf"],
                    body: ByteBuffer(bytes: TextPDF.make(["capybara number\(number)"])))
                ids.append(try #require(try jsonObject(created)["id"] as? String))
            }
            #expect(try await Self.places(service, "capybara").isEmpty)
            let indexing = Task { await service.library.runIndexing() }
            defer { indexing.cancel() }
            let deadline = ContinuousClock.now + .seconds(20)
            var found: [String] = []
            while ContinuousClock.now < deadline {
                found = try await Self.places(service, "capybara")
                if found.count == ids.count { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(Set(found) == Set(ids.map { "\($0):1" }))
            let versions = try await service.catalog.indexedVersions(of: ids.map { DocumentID(rawValue: $0)! })
            for id in ids {
                let record = try #require(try await service.catalog.document(DocumentID(rawValue: id)!))
                #expect(versions[record.id] == record.version)
            }
        }
    }
}
