import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DocumentStore
@testable import StoreCore

/// Every change of a document has a version: the info's validator follows it, every write names it, and the live
/// feed hands every event on once, in order, however many writers commit at once.
@Suite("Document versions and validators")
struct DocumentVersionTests {
    /// A merge patch's headers, naming the version `tag`.
    static func mergePatch(ifMatch tag: String) -> HTTPFields {
        [.contentType: "application/merge-patch+json", .ifMatch: tag]
    }

    /// Registers a one-page document; its id and its info's validator.
    static func registered(_ service: DocumentService, _ client: some TestClientProtocol) async throws -> (
        id: String, tag: String
    ) {
        let path = try service.place("one-page.pdf")
        let created = try await client.send("/documents", .post, json: #"{"files": ["\#(path.path)"]}"#)
        #expect(created.status == .created)
        return (try #require(try jsonObject(created)["id"] as? String), try #require(created.headers[.eTag]))
    }

    @Test("an unsaved edit changes the info's ETag: If-None-Match with the one before gets 200 and the new title")
    func editChangesValidator() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, tag) = try await Self.registered(service, client)
            let cached = try await client.execute(uri: "/documents/\(id)", method: .get, headers: [.ifNoneMatch: tag])
            #expect(cached.status == .notModified)
            let patched = try await client.send(
                "/documents/\(id)/metadata", .patch, json: #"{"title": "first"}"#,
                headers: Self.mergePatch(ifMatch: tag))
            #expect(patched.status == .ok)
            let edited = try #require(patched.headers[.eTag])
            #expect(edited != tag)
            #expect(try jsonObject(patched)["version"] as? Int == 2)
            let again = try await client.execute(uri: "/documents/\(id)", method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .ok)
            #expect(again.headers[.eTag] == edited)
            #expect((try jsonObject(again)["metadata"] as? [String: Any])?["title"] as? String == "first")
            // The content's tag is the bytes' and stays: an unsaved edit is not in the file.
            let content = try await client.execute(uri: "/documents/\(id)/content", method: .get)
            #expect(try content.headers[.eTag] == jsonObject(again)["contentEtag"] as? String)
        }
    }

    @Test("of two writes made against one version exactly one succeeds; a stale If-Match never does")
    func noLostUpdates() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, tag) = try await Self.registered(service, client)
            let alice = try await client.send(
                "/documents/\(id)/metadata", .patch, json: #"{"title": "alice"}"#,
                headers: Self.mergePatch(ifMatch: tag))
            #expect(alice.status == .ok)
            let bob = try await client.send(
                "/documents/\(id)/metadata", .patch, json: #"{"title": "bob"}"#,
                headers: Self.mergePatch(ifMatch: tag))
            #expect(bob.status == .preconditionFailed)
            let problem = try jsonObject(bob)
            #expect(problem["etag"] as? String == alice.headers[.eTag])
            #expect(problem["version"] as? String == "2")
            let annotation = #"{"kind": "note", "page": 1, "rect": {"x": 72, "y": 700, "width": 20, "height": 20}}"#
            let staleNote = try await client.send(
                "/documents/\(id)/annotations", .post, json: annotation, headers: [.ifMatch: tag])
            #expect(staleNote.status == .preconditionFailed)
            let staleSave = try await client.execute(
                uri: "/documents/\(id)/save", method: .post, headers: [.ifMatch: tag])
            #expect(staleSave.status == .preconditionFailed)
            let staleResolve = try await client.send(
                "/documents/\(id)/conflict/resolve", .post, json: #"{"resolution": "reload"}"#,
                headers: [.ifMatch: tag])
            #expect(staleResolve.status == .preconditionFailed)
            let staleDelete = try await client.execute(uri: "/documents/\(id)", method: .delete, headers: [.ifMatch: tag])
            #expect(staleDelete.status == .preconditionFailed)
            let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
            #expect((info["metadata"] as? [String: Any])?["title"] as? String == "alice")

            // Concurrent pairs: each round, both name the version current when the round starts.
            var current = try #require(alice.headers[.eTag])
            for round in 0..<15 {
                let statuses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, String?).self) { group in
                    for name in ["alice", "bob"] {
                        let ifMatch = current
                        group.addTask {
                            let response = try await client.send(
                                "/documents/\(id)/metadata", .patch, json: #"{"title": "\#(name) \#(round)"}"#,
                                headers: Self.mergePatch(ifMatch: ifMatch))
                            return (response.status, response.headers[.eTag])
                        }
                    }
                    var all: [(HTTPResponse.Status, String?)] = []
                    for try await answer in group { all.append(answer) }
                    return all
                }
                #expect(statuses.filter { $0.0 == .ok }.count == 1, "round \(round): \(statuses.map(\.0))")
                #expect(statuses.filter { $0.0 == .preconditionFailed }.count == 1, "round \(round)")
                current = try #require(statuses.first { $0.0 == .ok }?.1)
            }
        }
    }

    @Test("a document's version only grows: every event names a greater one than the event before")
    func eventsCarryVersions() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, tag) = try await Self.registered(service, client)
            let patched = try await client.send(
                "/documents/\(id)/metadata", .patch, json: #"{"title": "saved"}"#,
                headers: Self.mergePatch(ifMatch: tag))
            let saved = try await client.execute(
                uri: "/documents/\(id)/save", method: .post, headers: [.ifMatch: try #require(patched.headers[.eTag])])
            #expect(saved.status == .ok)
            let savedInfo = try jsonObject(saved)
            let deleted = try await client.execute(
                uri: "/documents/\(id)", method: .delete, headers: [.ifMatch: try #require(saved.headers[.eTag])])
            #expect(deleted.status == .noContent)
            let events = try await service.events().filter { $0.documentID.rawValue == id }
            #expect(events.map(\.type) == [.created, .saved, .deleted])
            #expect(events.map(\.version) == [1, 3, 4])  // the unsaved edit was version 2
            #expect(events[1].validator?.headerValue == saved.headers[.eTag])
            #expect(savedInfo["version"] as? Int == 3)
        }
    }

    @Test("8 writers, 2,000 events, 20 live readers (some slow): each reader gets every id once, in order")
    func liveFeedKeepsOrder() async throws {
        let bare = try BareLibrary()
        let (library, catalog) = (bare.library, bare.catalog)
        let writers = 8
        let perWriter = 250
        let records = (0..<writers).map { index in
            DocumentRecord(
                id: DocumentID(rawValue: "doc-\(index)")!, files: ["/nowhere/\(index).pdf"], origin: .registered,
                pageCount: 1, size: 1, etag: EntityTag(content: Data([UInt8(index)])), createdAt: Date(),
                updatedAt: Date())
        }
        let total = writers * perWriter
        for record in records { try await catalog.insert(record) }
        let readers = (0..<20).map { _ in library.events.subscribe() }
        let collected = try await withThrowingTaskGroup(of: [StoreEvent]?.self) { group in
            for (index, stream) in readers.enumerated() {
                group.addTask {
                    var received: [StoreEvent] = []
                    for await item in stream.items {
                        guard case .event(let event) = item else { continue }
                        received.append(event)
                        // Every fourth reader is slow.
                        if index % 4 == 0, received.count % 100 == 0 { try await Task.sleep(for: .milliseconds(5)) }
                        if received.count == total { break }
                    }
                    return received
                }
            }
            for record in records {
                group.addTask {
                    for _ in 0..<perWriter { await library.record(.changed, record) }
                    return nil
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                throw CancellationError()  // bounded: a reader that never completes fails the test
            }
            var all: [[StoreEvent]] = []
            while all.count < readers.count, let next = try await group.next() {
                if let next { all.append(next) }
            }
            group.cancelAll()
            return all
        }
        let logged = try await catalog.events(after: 0, limit: total + 1)
        await bare.remove()
        #expect(logged.map(\.id) == Array(1...Int64(total)).map { Optional($0) })
        for received in collected {
            let ids = received.compactMap(\.id)
            #expect(ids == Array(1...Int64(total)), "missing, repeated or out of order")
            for id in records.map(\.id) {
                let versions = received.filter { $0.documentID == id }.compactMap(\.version)
                #expect(versions == Array(2...Int64(perWriter + 1)), "document \(id): versions")
            }
        }
    }
}
