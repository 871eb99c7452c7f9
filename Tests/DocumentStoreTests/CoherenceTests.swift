import DocumentStore
import FileCoordination
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import HummingbirdTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Other programs change a document's file; the store follows (events, state, conflicts, resolutions).
@Suite("Store coherence with its files")
struct CoherenceTests {
    /// Registers a copy of `fixture` and returns the document id, its tag and the file.
    static func registered(
        _ service: DocumentService, _ client: any TestClientProtocol, _ fixture: String = "one-page.pdf"
    )
        async throws -> (id: String, tag: String, url: URL)
    {
        let url = try service.place(fixture, as: UUID().uuidString + ".pdf")
        let response = try await client.send("/documents", .post, json: #"{"files": ["\#(url.path)"]}"#)
        #expect(response.status == .created)
        let id = try #require(try jsonObject(response)["id"] as? String)
        try CoordinationService.synchronize()  // the presenters are registered before anything changes
        return (id, try #require(response.headers[.eTag]), url)
    }

    @Test("A coordinated write reloads a clean document: one changed event with the new tag; a touch gives none")
    func coordinatedChange() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, url) = try await Self.registered(service, client)
            let after = try await service.catalog.lastEventID()
            let replacement = try Fixture.data("mixed-sizes.pdf")
            try FileCoordinator().coordinate(writingItemAt: url) { url in try replacement.write(to: url) }
            let changed = try #require(try await service.waitForEvent(.changed, of: id, after: after))
            #expect(changed.etag == EntityTag(content: replacement))
            let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
            #expect(info["pageCount"] as? Int == 4)
            #expect(info["state"] as? String == "clean")
            #expect(utimensat(AT_FDCWD, url.path, nil, 0) == 0)
            try replacement.write(to: url)  // same bytes, uncoordinated
            try await Task.sleep(for: .milliseconds(300))  // a negative check: nothing may arrive
            #expect(try await service.events(after: after).count == 1)
        }
    }

    @Test("An uncoordinated overwrite (cp) and an atomic replace (mv over it) each give one changed event")
    func uncoordinatedChanges() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, url) = try await Self.registered(service, client)
            var after = try await service.catalog.lastEventID()
            try Fixture.data("metadata.pdf").write(to: url)
            let first = try #require(try await service.waitForEvent(.changed, of: id, after: after))
            after = try #require(first.id)
            let staged = service.root.appendingPathComponent("staged.tmp")
            try Fixture.data("mixed-sizes.pdf").write(to: staged)
            #expect(rename(staged.path, url.path) == 0)
            #expect(try await service.waitForEvent(.changed, of: id, after: after) != nil)
            let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
            #expect(info["pageCount"] as? Int == 4)
        }
    }

    @Test("A change under unsaved edits is a conflict; reload drops the edits, save overwrites the file")
    func modificationConflict() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, url) = try await Self.registered(service, client)
            for resolution in ["reload", "save"] {
                let edited = try await client.send("/documents/\(id)/metadata", .patch, json: #"{"title": "mine"}"#)
                #expect(edited.status == .ok)
                let after = try await service.catalog.lastEventID()
                let theirs = try Fixture.data(resolution == "reload" ? "mixed-sizes.pdf" : "metadata.pdf")
                try FileCoordinator().coordinate(writingItemAt: url) { url in try theirs.write(to: url) }
                let conflict = try #require(try await service.waitForEvent(.conflict, of: id, after: after))
                #expect(conflict.extra["conflict"] == "modification")
                let report = try jsonObject(try await client.execute(uri: "/documents/\(id)/conflict", method: .get))
                #expect(report["state"] as? String == "conflict")
                let reported = report["conflict"] as? [String: Any]
                #expect(reported?["type"] as? String == "modification")
                // Both sides: the document keeps its version; the report has the file as it is on disk now.
                #expect(reported?["fileSize"] as? Int == theirs.count)
                #expect(reported?["fileEtag"] as? String == EntityTag(content: theirs).headerValue)
                let tag = try #require(try await client.execute(uri: "/documents/\(id)", method: .get).headers[.eTag])
                #expect(
                    try await client.execute(uri: "/documents/\(id)/save", method: .post, headers: [.ifMatch: tag])
                        .status == .conflict)
                let resolved = try await client.send(
                    "/documents/\(id)/conflict/resolve", .post, json: #"{"resolution": "\#(resolution)"}"#)
                #expect(resolved.status == .ok, "\(resolution)")
                let info = try jsonObject(resolved)
                #expect(info["state"] as? String == "clean")
                let title = (info["metadata"] as? [String: Any])?["title"] as? String
                if resolution == "reload" {
                    #expect(title != "mine")
                    #expect(info["pageCount"] as? Int == 4)
                } else {
                    #expect(title == "mine")
                    let onDisk = try Data(contentsOf: url)
                    #expect(info["contentEtag"] as? String == EntityTag(content: onDisk).headerValue)
                    #expect(resolved.headers[.eTag] == info["etag"] as? String)
                }
                #expect(try await service.waitForEvent(.resolved, of: id, after: after) != nil)
            }
            let none = try await client.send(
                "/documents/\(id)/conflict/resolve", .post, json: #"{"resolution": "reload"}"#)
            #expect(none.status == .conflict)
            #expect(try jsonObject(none)["type"] as? String == "/problems/no-conflict")
            let bad = try await client.send(
                "/documents/\(id)/conflict/resolve", .post, json: #"{"resolution": "maybe"}"#)
            #expect(bad.status == .badRequest)
        }
    }

    @Test("A deleted file: a deleted event and state; reload is refused, save restores it; close forgets")
    func deletion() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, url) = try await Self.registered(service, client)
            let original = try Data(contentsOf: url)
            var after = try await service.catalog.lastEventID()
            try FileManager.default.removeItem(at: url)
            #expect(try await service.waitForEvent(.deleted, of: id, after: after) != nil)
            let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
            #expect(info["state"] as? String == "deleted")
            #expect(info["conflict"] as? String == "deletion")
            let report = try jsonObject(try await client.execute(uri: "/documents/\(id)/conflict", method: .get))
            let reported = try #require(report["conflict"] as? [String: Any])
            #expect(reported["type"] as? String == "deletion")
            // The file is gone: its facts are null (present, as every optional member of a response is).
            #expect(reported["fileSize"] is NSNull && reported["fileEtag"] is NSNull)
            let reload = try await client.send(
                "/documents/\(id)/conflict/resolve", .post, json: #"{"resolution": "reload"}"#)
            #expect(reload.status == .conflict)
            after = try await service.catalog.lastEventID()
            let restored = try await client.send(
                "/documents/\(id)/conflict/resolve", .post, json: #"{"resolution": "save"}"#)
            #expect(restored.status == .ok)
            #expect(try Data(contentsOf: url) == original)
            #expect(try await service.waitForEvent(.resolved, of: id, after: after)?.extra["resolution"] == "save")

            after = try await service.catalog.lastEventID()
            try FileCoordinator().coordinate(writingItemAt: url, options: .forDeleting) { url in
                try FileManager.default.removeItem(at: url)
            }
            #expect(try await service.waitForEvent(.deleted, of: id, after: after) != nil)
            let closed = try await client.send(
                "/documents/\(id)/conflict/resolve", .post, json: #"{"resolution": "close"}"#)
            #expect(closed.status == .noContent)
            #expect(try await client.execute(uri: "/documents/\(id)", method: .get).status == .notFound)
        }
    }

    @Test("A file renamed in its directory: a moved event, and the document follows it")
    func move() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, url) = try await Self.registered(service, client)
            let after = try await service.catalog.lastEventID()
            let destination = service.root.appendingPathComponent("renamed.pdf")
            #expect(rename(url.path, destination.path) == 0)
            let moved = try #require(try await service.waitForEvent(.moved, of: id, after: after))
            #expect(moved.extra["from"] == url.path)
            #expect(moved.extra["to"] == destination.path)
            let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
            #expect((info["files"] as? [[String: Any]])?.first?["path"] as? String == destination.path)
            #expect(try await client.execute(uri: "/documents/\(id)/pages/1/text", method: .get).status == .ok)
        }
    }

    @Test("A closed document's file stays watched: a write, a rename and a deletion each give their event unasked")
    func closedDocumentsWatched() async throws {
        let service = try DocumentService(maxOpenDocuments: 1)
        try await service.run { client in
            let first = try await Self.registered(service, client)
            let second = try await Self.registered(service, client, "metadata.pdf")  // first is closed now
            try CoordinationService.synchronize()
            var after = try await service.catalog.lastEventID()

            let replacement = try Fixture.data("mixed-sizes.pdf")
            try replacement.write(to: first.url)  // uncoordinated, in place
            let changed = try #require(try await service.waitForEvent(.changed, of: first.id, after: after))
            #expect(changed.etag == EntityTag(content: replacement))
            after = try #require(changed.id)

            // Its change opened the first document, which closed the second: rename the second's file.
            try CoordinationService.synchronize()
            let destination = service.root.appendingPathComponent("renamed.pdf")
            #expect(rename(second.url.path, destination.path) == 0)
            let moved = try #require(try await service.waitForEvent(.moved, of: second.id, after: after))
            #expect(moved.extra["from"] == second.url.path)
            #expect(moved.extra["to"] == destination.path)
            let info = try jsonObject(try await client.execute(uri: "/documents/\(second.id)", method: .get))
            #expect((info["files"] as? [[String: Any]])?.first?["path"] as? String == destination.path)
            #expect(info["state"] as? String == "clean")

            // Reading the second opened it and closed the first: delete the first's file.
            try CoordinationService.synchronize()
            after = try await service.catalog.lastEventID()
            #expect(unlink(first.url.path) == 0)
            let deleted = try #require(try await service.waitForEvent(.deleted, of: first.id, after: after))
            #expect(deleted.extra["file"] == first.url.path)
            let state = try jsonObject(try await client.execute(uri: "/documents/\(first.id)", method: .get))
            #expect(state["state"] as? String == "deleted")
        }
    }

    @Test("After a restart the documents beyond the open bound are watched from the start")
    func closedDocumentsWatchedAfterRestart() async throws {
        let service = try DocumentService(maxOpenDocuments: 1)
        try await service.run { client in
            let older = try await Self.registered(service, client)
            _ = try await Self.registered(service, client, "metadata.pdf")
            await service.library.shutdown()  // the service stops; another starts over the same catalog
            var logger = Logger(label: "quire.test")
            logger.logLevel = .critical
            let restarted = try DocumentLibrary(
                catalog: service.catalog, configuration: service.configuration, metrics: StoreMetrics(),
                logger: logger)
            await restarted.start()  // watches the directories of the documents, opening none
            try CoordinationService.synchronize()
            let after = try await service.catalog.lastEventID()
            let replacement = try Fixture.data("mixed-sizes.pdf")
            try replacement.write(to: older.url, options: .atomic)
            let changed = try await service.waitForEvent(.changed, of: older.id, after: after)
            await restarted.shutdown()
            #expect(changed?.etag == EntityTag(content: replacement))
        }
    }

    @Test(
        "Beyond the open bound the least recently used clean document closes; a change meanwhile is seen on reopening"
    )
    func evictionAndReconcile() async throws {
        let service = try DocumentService(maxOpenDocuments: 1)
        try await service.run { client in
            let first = try await Self.registered(service, client)
            let second = try await Self.registered(service, client, "metadata.pdf")  // first is closed now
            let after = try await service.catalog.lastEventID()
            try Fixture.data("mixed-sizes.pdf").write(to: first.url)
            let info = try jsonObject(try await client.execute(uri: "/documents/\(first.id)", method: .get))
            #expect(info["pageCount"] as? Int == 4)
            #expect(try await service.waitForEvent(.changed, of: first.id, after: after) != nil)
            #expect(try await client.execute(uri: "/documents/\(second.id)", method: .get).status == .ok)
        }
    }
}
