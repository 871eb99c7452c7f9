import DocumentStore
import FileCoordination
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

// Fail on main: the routes did not exist (404), and a resolution kept nothing of the side it dropped.
@Suite("Versions: GET /documents/{id}/versions, POST /documents/{id}/versions/{v}/restore")
struct VersionRouteTests {
    /// A registered document with local edits (`"title": "mine"`) whose file another process replaced with
    /// `theirs`: in a `modification` conflict.
    static func inConflict(
        _ service: DocumentService, _ client: any TestClientProtocol, theirs: String = "mixed-sizes.pdf"
    ) async throws -> (id: String, url: URL) {
        let (id, _, url) = try await CoherenceTests.registered(service, client)
        #expect(try await client.send("/documents/\(id)/metadata", .patch, json: #"{"title": "mine"}"#).status == .ok)
        let after = try await service.catalog.lastEventID()
        let bytes = try Fixture.data(theirs)
        try FileCoordinator().coordinate(writingItemAt: url) { url in try bytes.write(to: url) }
        _ = try #require(try await service.waitForEvent(.conflict, of: id, after: after))
        return (id, url)
    }

    /// The versions the route lists.
    static func versions(_ client: any TestClientProtocol, _ id: String) async throws -> [[String: Any]] {
        let response = try await client.execute(uri: "/documents/\(id)/versions", method: .get)
        #expect(response.status == .ok)
        let body = try jsonObject(response)
        #expect(body["document"] as? String == id)
        return try #require(body["versions"] as? [[String: Any]])
    }

    @Test("reload keeps the edits as a version; restoring it brings them back, with If-Match and an event")
    func reloadThenRestore() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, url) = try await Self.inConflict(service, client)
            #expect(try await Self.versions(client, id).isEmpty)
            let resolved = try await client.send(
                "/documents/\(id)/conflict/resolve", .post, json: #"{"resolution": "reload"}"#)
            #expect(resolved.status == .ok)
            #expect(try jsonObject(resolved)["pageCount"] as? Int == 4)

            let listed = try await Self.versions(client, id)
            #expect(listed.count == 1)
            let version = try #require(listed.first)
            let versionID = try #require(version["id"] as? String)
            #expect(version["file"] as? String == url.path)
            #expect(version["isConflict"] as? Bool == true && version["isResolved"] as? Bool == false)
            #expect(version["localizedName"] as? String == url.lastPathComponent)
            #expect((version["size"] as? Int ?? 0) > 0)
            #expect(version["modificationDate"] is String)

            let restore = "/documents/\(id)/versions/\(versionID)/restore"
            let tag = try #require(resolved.headers[.eTag])
            #expect(try await client.execute(uri: restore, method: .post).status == .preconditionRequired)
            let stale = try await client.execute(uri: restore, method: .post, headers: [.ifMatch: "\"0000\""])
            #expect(stale.status == .preconditionFailed)
            let unknown = try await client.execute(
                uri: "/documents/\(id)/versions/\(UUID().uuidString)/restore", method: .post, headers: [.ifMatch: tag])
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType] == "application/problem+json")
            #expect(try jsonObject(unknown)["type"] as? String == "/problems/version-not-found")
            let tooLong = try await client.execute(
                uri: "/documents/\(id)/versions/\(String(repeating: "a", count: 65))/restore", method: .post,
                headers: [.ifMatch: tag])
            #expect(tooLong.status == .notFound)

            let after = try await service.catalog.lastEventID()
            let restored = try await client.execute(uri: restore, method: .post, headers: [.ifMatch: tag])
            #expect(restored.status == .ok)
            let info = try jsonObject(restored)
            #expect((info["metadata"] as? [String: Any])?["title"] as? String == "mine")
            #expect(info["pageCount"] as? Int == 1 && info["state"] as? String == "clean")
            #expect(info["contentEtag"] as? String == EntityTag(content: try Data(contentsOf: url)).headerValue)
            #expect(restored.headers[.eTag] == info["etag"] as? String)
            let event = try #require(try await service.waitForEvent(.changed, of: id, after: after))
            #expect(event.extra["restoredVersion"] == versionID && event.extra["file"] == url.path)
            #expect(try await Self.versions(client, id).count == 1)  // the version stays
        }
    }

    @Test("save keeps the bytes on disk it overwrites as a version")
    func saveKeepsTheOverwrittenBytes() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, url) = try await Self.inConflict(service, client, theirs: "metadata.pdf")
            let resolved = try await client.send(
                "/documents/\(id)/conflict/resolve", .post, json: #"{"resolution": "save"}"#)
            #expect(resolved.status == .ok)
            let listed = try await Self.versions(client, id)
            #expect(listed.count == 1)
            let theirs = try Fixture.data("metadata.pdf")
            #expect(listed.first?["size"] as? Int == theirs.count)
            #expect(listed.first?["file"] as? String == url.path)
            // The versions live in the store's own versions store.
            let store = FileVersionStore(directory: service.configuration.storeDirectory.appendingPathComponent("versions"))
            let kept = try store.versions(ofItemAt: url)
            #expect(kept.count == 1)
            #expect(try Data(contentsOf: try #require(kept.first).url) == theirs)
        }
    }

    @Test("restore is refused in conflict; unknown documents are 404 problems")
    func refusals() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _) = try await Self.inConflict(service, client)
            let tag = try #require(try await client.execute(uri: "/documents/\(id)", method: .get).headers[.eTag])
            let inConflict = try await client.execute(
                uri: "/documents/\(id)/versions/\(UUID().uuidString)/restore", method: .post, headers: [.ifMatch: tag])
            #expect(inConflict.status == .conflict)
            let missing = try await client.execute(uri: "/documents/nope/versions", method: .get)
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentType] == "application/problem+json")
        }
    }
}
