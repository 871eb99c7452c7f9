import DocumentStore
import Foundation
import Logging
import PostgresNIO
import QuireTestSupport
import Testing

/// The conformance suite of the catalog and event log: every test that is not about one engine runs against SQLite
/// (``Catalog``) and PostgreSQL (``PostgresCatalog``, on a private server the tests start).
@Suite("Catalog and event log")
struct CatalogTests {
    static let created = Date(timeIntervalSince1970: 1_790_000_000)

    static func record(_ id: String, etag: String = "aa", state: DocumentState = .clean) -> DocumentRecord {
        DocumentRecord(
            id: DocumentID(rawValue: id)!, files: ["/srv/pdf/\(id).pdf", "/srv/pdf/\(id)-appendix.pdf"],
            origin: .registered, title: "Report \(id)", pageCount: 12, size: 34_567,
            etag: EntityTag(opaqueTag: etag)!, state: state, createdAt: created, updatedAt: created)
    }

    @Test("documents are inserted, read, listed, updated and deleted", arguments: CatalogEngine.allCases)
    func documentLifecycle(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            let first = Self.record("doc-1")
            var second = Self.record("doc-2")
            second.createdAt = Self.created.addingTimeInterval(1)
            second.origin = .upload
            second.title = nil
            try await catalog.insert(second)
            try await catalog.insert(first)
            #expect(try await catalog.document(first.id) == first)
            #expect(try await catalog.documents() == [first, second])  // oldest first

            var changed = first
            changed.state = .conflict(.modification)
            changed.etag = EntityTag(opaqueTag: "bb")!
            changed.updatedAt = Self.created.addingTimeInterval(60)
            try await catalog.update(changed)
            changed.version = 2  // the catalog's: one more than the stored one
            #expect(try await catalog.document(first.id) == changed)

            try await catalog.deleteDocument(first.id)
            #expect(try await catalog.document(first.id) == nil)
            #expect(try await catalog.documents() == [second])
        }
    }

    @Test("every state, with and without a conflict type, survives the catalog", arguments: CatalogEngine.allCases)
    func states(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            let states: [DocumentState] = [.clean, .dirty, .conflict(.deletion), .conflict(.modification), .deleted]
            for (index, state) in states.enumerated() {
                try await catalog.insert(Self.record("d\(index)", state: state))
                #expect(try await catalog.document(DocumentID(rawValue: "d\(index)")!)?.state == state)
            }
        }
    }

    @Test("a duplicate id, or an update or delete of a missing one, fails with the document named", arguments: CatalogEngine.allCases)
    func missingAndDuplicate(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            let record = Self.record("doc")
            try await catalog.insert(record)
            await #expect(throws: CatalogError.duplicateDocument(record.id)) { try await catalog.insert(record) }
            let missing = Self.record("missing")
            await #expect(throws: CatalogError.documentNotFound(missing.id)) { try await catalog.update(missing) }
            await #expect(throws: CatalogError.documentNotFound(missing.id)) {
                try await catalog.deleteDocument(missing.id)
            }
            #expect(CatalogError.documentNotFound(missing.id).description == "document missing is not in the catalog")
        }
    }

    @Test("appended events get increasing ids and come back after a given id, in order", arguments: CatalogEngine.allCases)
    func eventLog(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            #expect(try await catalog.lastEventID() == 0)
            let document = DocumentID(rawValue: "doc")!
            var appended: [StoreEvent] = []
            for type in StoreEvent.EventType.allCases {
                let event = StoreEvent(
                    type: type, documentID: document, etag: type == .deleted ? nil : EntityTag(opaqueTag: "e1"),
                    at: Self.created, extra: type == .moved ? ["from": "/a/x.pdf", "to": "/b/x.pdf"] : [:])
                appended.append(try await catalog.append(event))
            }
            let ids = appended.compactMap(\.id)
            #expect(ids.count == StoreEvent.EventType.allCases.count)
            #expect(ids == ids.sorted() && Set(ids).count == ids.count)
            #expect(try await catalog.lastEventID() == ids.last)
            #expect(try await catalog.events(after: 0) == appended)
            #expect(try await catalog.events(after: ids[2]) == Array(appended.dropFirst(3)))
            #expect(try await catalog.events(after: ids[2], limit: 2) == Array(appended[3..<5]))
            #expect(try await catalog.events(after: ids.last!).isEmpty)
        }
    }

    @Test("a document change and its event commit together; a failed change appends no event", arguments: CatalogEngine.allCases)
    func changeWithEvent(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            let record = Self.record("doc")
            let created = try #require(
                try await catalog.insert(
                    record, recording: StoreEvent(type: .created, documentID: record.id, etag: record.etag)))
            #expect(created.id == 1)
            await #expect(throws: CatalogError.duplicateDocument(record.id)) {
                try await catalog.insert(record, recording: StoreEvent(type: .created, documentID: record.id))
            }
            #expect(try await catalog.lastEventID() == 1)
            let deleted = try await catalog.deleteDocument(
                record.id, recording: StoreEvent(type: .deleted, documentID: record.id))
            #expect(deleted?.id == 2)
            #expect(try await catalog.events(after: 0).map(\.type) == [.created, .deleted])
        }
    }

    @Test(
        "every change moves a document's version by one, whatever the caller set; each event names the version it left",
        arguments: CatalogEngine.allCases)
    func versions(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            var record = Self.record("doc")
            record.version = 40
            let created = try await catalog.insert(record, recording: StoreEvent(type: .created, documentID: record.id))
            #expect(created?.version == 1)
            #expect(try await catalog.document(record.id)?.version == 1)
            record.version = 1
            try await catalog.update(record)  // an edit: no event, a version all the same
            #expect(try await catalog.document(record.id)?.version == 2)
            let changed = try await catalog.update(record, recording: StoreEvent(type: .changed, documentID: record.id))
            #expect(changed?.version == 3)
            let moved = try await catalog.append(StoreEvent(type: .moved, documentID: record.id))
            #expect(moved.version == 4)
            #expect(try await catalog.document(record.id)?.version == 4)
            let deleted = try await catalog.deleteDocument(
                record.id, recording: StoreEvent(type: .deleted, documentID: record.id))
            #expect(deleted?.version == 5)
            // The log says the same, and an event of a document not in the catalog has no version.
            let orphan = try await catalog.append(StoreEvent(type: .changed, documentID: record.id))
            #expect(orphan.version == nil)
            #expect(try await catalog.events(after: 0).map(\.version) == [1, 3, 4, 5, nil])
        }
    }

    @Test("after a restart the catalog keeps its documents and event ids keep growing", arguments: CatalogEngine.allCases)
    func restartKeepsIDs(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let document = DocumentID(rawValue: "doc")!
            do {
                let catalog = try await place.open()
                try await catalog.insert(Self.record("doc"))
                for _ in 0..<3 { try await catalog.append(StoreEvent(type: .changed, documentID: document)) }
            }
            let reopened = try await place.open()
            var kept = Self.record("doc")
            kept.version = 4  // inserted at 1, then three events
            #expect(try await reopened.documents() == [kept])
            #expect(try await reopened.lastEventID() == 3)
            let next = try await reopened.append(StoreEvent(type: .saved, documentID: document))
            #expect(next.id == 4)
            #expect(try await reopened.events(after: 3) == [next])
        }
    }

    @Test("a store path that is a file cannot be opened, with a one-line reason")
    func cannotOpen() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.file("not-a-directory", contents: "x")
        let error = #expect(throws: CatalogError.self) { try Catalog(storeDirectory: file) }
        #expect(error?.description.hasPrefix("cannot open the catalog \(file.path)/catalog.sqlite: ") == true)
    }

    @Test("document ids: valid ones are opaque and path-safe; random ones are valid and distinct")
    func documentIDs() {
        for valid in ["a", "doc-1", "A_b-9", String(repeating: "x", count: 64)] {
            #expect(DocumentID(rawValue: valid) != nil, "\(valid)")
        }
        for invalid in ["", "..", ".", "a/b", "-a", "_a", "a b", "é", "a.pdf", String(repeating: "x", count: 65)] {
            #expect(DocumentID(rawValue: invalid) == nil, "\(invalid)")
        }
        let ids = (0..<1000).map { _ in DocumentID.random() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { DocumentID.isValid($0.rawValue) && $0.rawValue.count == 16 })
    }
}

extension CatalogTests {
    @Test("dates are kept to the millisecond, so that a record equals itself read back", arguments: CatalogEngine.allCases)
    func datePrecision(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            let catalog = try await place.open()
            var record = Self.record("doc")
            record.updatedAt = Date(timeIntervalSince1970: 1_790_000_000.123_456_7)
            #expect(record.updatedAt == Date(timeIntervalSince1970: 1_790_000_000.123))
            try await catalog.insert(record)
            #expect(try await catalog.document(record.id) == record)
            let event = try await catalog.append(StoreEvent(type: .saved, documentID: record.id, at: Date()))
            #expect(try await catalog.events(after: 0) == [event])
        }
    }
}

extension CatalogTests {
    @Test(
        "appends from many connections at once get ids 1…N with no gap, and every id reads back in order",
        arguments: CatalogEngine.allCases)
    func concurrentAppendsAreGapFree(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            // Four catalogs on the place: four connections (for PostgreSQL, as four nodes would be).
            var catalogs: [any CatalogDatabase] = []
            for _ in 0..<4 { catalogs.append(try await place.open()) }
            let document = DocumentID(rawValue: "doc")!
            let ids = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for catalog in catalogs {
                    group.addTask {
                        var ids: [Int64] = []
                        for _ in 0..<25 {
                            ids.append(try await catalog.append(StoreEvent(type: .changed, documentID: document)).id!)
                        }
                        return ids
                    }
                }
                var all: [Int64] = []
                for try await ids in group {
                    #expect(ids == ids.sorted(), "one writer's ids only grow")
                    all += ids
                }
                return all
            }
            #expect(ids.sorted() == Array(1...100))
            #expect(try await catalogs[0].lastEventID() == 100)
            #expect(try await catalogs[1].events(after: 0, limit: 1000).compactMap(\.id) == Array(1...100))
        }
    }

    @Test("a catalog written by a newer Quire is refused with one line naming both versions", arguments: CatalogEngine.allCases)
    func newerSchemaIsRefused(engine: CatalogEngine) async throws {
        try await CatalogPlace.with(engine) { place in
            _ = try await place.open()
            try await place.pretendNewerSchema()
            let error = await #expect(throws: CatalogError.self) { _ = try await place.open() }
            guard case .cannotOpen(_, let reason)? = error else {
                Issue.record("not cannotOpen: \(String(describing: error))")
                return
            }
            #expect(reason.contains("newer"), "\(reason)")
            #expect(!(error?.description.contains("\n") ?? true))
        }
    }

    @Test("an unreachable PostgreSQL fails the opening with one line, within the catalog's deadline")
    func unreachablePostgres() async throws {
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: 1, username: "quire", password: nil, database: "quire", tls: .disable)
        configuration.options.connectTimeout = .seconds(2)
        let started = ContinuousClock.now
        let error = await #expect(throws: CatalogError.self) {
            try await PostgresServer.withClient(configuration) { client in
                _ = try await PostgresCatalog.open(
                    client: client, location: "postgres://quire@127.0.0.1:1/quire", deadline: .seconds(3),
                    logger: Logger(label: "test"))
            }
        }
        #expect(ContinuousClock.now - started < .seconds(20))
        guard case .cannotOpen(let location, let reason)? = error else {
            Issue.record("not cannotOpen: \(String(describing: error))")
            return
        }
        #expect(location == "postgres://quire@127.0.0.1:1/quire")
        #expect(!reason.isEmpty && !reason.contains("\n") && !reason.contains("Generic description"), "\(reason)")
    }
}
