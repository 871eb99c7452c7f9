import DocumentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Document routes")
struct DocumentRouteTests {
    @Test("Upload: 201 with Location, ETag (SHA-256 of the bytes) and the info; listed; a created event")
    func upload() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let response = try await client.upload("mixed-sizes.pdf")
            #expect(response.status == .created)
            let info = try jsonObject(response)
            let id = try #require(info["id"] as? String)
            #expect(response.headers[.location] == "/documents/\(id)")
            let contentTag = "\"" + EntityTag(content: try Fixture.data("mixed-sizes.pdf")).opaqueTag + "\""
            // The info's validator: the content's tag at version 1.
            let expectedTag = "\"" + EntityTag(content: try Fixture.data("mixed-sizes.pdf")).opaqueTag + "-1\""
            #expect(response.headers[.eTag] == expectedTag)
            #expect(info["etag"] as? String == expectedTag)
            #expect(info["version"] as? Int == 1)
            #expect(info["contentEtag"] as? String == contentTag)
            #expect(info["pageCount"] as? Int == 4)
            #expect(info["state"] as? String == "clean")
            #expect(info["origin"] as? String == "upload")
            #expect(info["encrypted"] as? Bool == false)
            #expect(info["conflict"] is NSNull)
            let pages = try #require(info["pages"] as? [[String: Any]])
            #expect(pages.count == 4)
            #expect(pages[1]["width"] as? Double == 792)
            #expect(pages[1]["number"] as? Int == 2)

            let list = try jsonObject(try await client.execute(uri: "/documents", method: .get))
            let documents = try #require(list["documents"] as? [[String: Any]])
            #expect(documents.map { $0["id"] as? String } == [id])
            #expect(documents.first?["etag"] as? String == expectedTag)
            // The upload's answer is what the catalog holds (not a record of the moment before it was stored).
            #expect(documents.first?["updatedAt"] as? String == info["updatedAt"] as? String)
            #expect(documents.first?["version"] as? Int == 1)
            let events = try await service.events()
            #expect(events.map(\.type) == [.created])
            #expect(events.first?.documentID.rawValue == id)
        }
    }

    @Test("Info answers 304 to a matching If-None-Match; content honours If-None-Match and Range")
    func conditionalAndRanges() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let created = try await client.upload("one-page.pdf")
            let id = try #require(try jsonObject(created)["id"] as? String)
            let tag = try #require(created.headers[.eTag])
            let notModified = try await client.execute(
                uri: "/documents/\(id)", method: .get, headers: [.ifNoneMatch: tag])
            #expect(notModified.status == .notModified)
            let bytes = try Fixture.data("one-page.pdf")
            let whole = try await client.execute(uri: "/documents/\(id)/content", method: .get)
            #expect(whole.status == .ok)
            #expect(Data(buffer: whole.body) == bytes)
            #expect(whole.headers[.contentType] == "application/pdf")
            #expect(whole.headers[.acceptRanges] == "bytes")
            // The content's tag is its bytes' (the info's contentEtag), not the info's validator.
            let contentTag = try #require(try jsonObject(created)["contentEtag"] as? String)
            #expect(whole.headers[.eTag] == contentTag)
            #expect(
                try await client.execute(
                    uri: "/documents/\(id)/content", method: .get, headers: [.ifNoneMatch: contentTag]
                ).status == .notModified)
            #expect(
                try await client.execute(uri: "/documents/\(id)/content", method: .get, headers: [.ifNoneMatch: tag])
                    .status == .ok)
            let part = try await client.execute(
                uri: "/documents/\(id)/content", method: .get, headers: [.range: "bytes=0-7"])
            #expect(part.status == .partialContent)
            #expect(Data(buffer: part.body) == bytes.prefix(8))
            #expect(part.headers[.contentRange] == "bytes 0-7/\(bytes.count)")
            let beyond = try await client.execute(
                uri: "/documents/\(id)/content", method: .get, headers: [.range: "bytes=999999-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers[.contentRange] == "bytes */\(bytes.count)")
        }
    }

    @Test("Text and images of pages; bad page numbers and resolutions are clear 400/404 problems")
    func pages() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let id = try #require(try jsonObject(try await client.upload("one-page.pdf"))["id"] as? String)
            let text = try await client.execute(uri: "/documents/\(id)/pages/1/text", method: .get)
            #expect(text.status == .ok)
            #expect(String(buffer: text.body).contains("Hello from page one."))
            let image = try await client.execute(uri: "/documents/\(id)/pages/1/image?dpi=36", method: .get)
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/png")
            #expect(Data(buffer: image.body).starts(with: [0x89, 0x50, 0x4E, 0x47]))
            for (uri, status, type) in [
                ("/documents/\(id)/pages/2/text", HTTPResponse.Status.notFound, "/problems/page-out-of-range"),
                ("/documents/\(id)/pages/0/text", .badRequest, "/problems/invalid-parameter"),
                ("/documents/\(id)/pages/x/text", .badRequest, "/problems/invalid-parameter"),
                ("/documents/\(id)/pages/99999999999999999999/image", .badRequest, "/problems/invalid-parameter"),
                ("/documents/\(id)/pages/1/image?dpi=100000", .badRequest, "/problems/invalid-parameter"),
                ("/documents/\(id)/pages/1/image?dpi=0", .badRequest, "/problems/invalid-parameter"),
                ("/documents/\(id)/pages/1/image?dpi=abc", .badRequest, "/problems/invalid-parameter"),
                ("/documents/no-such-document", .notFound, "about:blank"),
                ("/documents/bad%20id!", .badRequest, "/problems/invalid-id"),
            ] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == status, "\(uri)")
                #expect(response.headers[.contentType] == "application/problem+json", "\(uri)")
                #expect(try jsonObject(response)["type"] as? String == type, "\(uri)")
            }
        }
    }

    @Test("Bad uploads: not a PDF 422, encrypted without password 401, wrong media type 415; nothing is kept")
    func badUploads() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let damaged = try await client.upload("not-a-pdf.pdf")
            #expect(damaged.status == .unprocessableContent)
            #expect(try jsonObject(damaged)["type"] as? String == "/problems/damaged-pdf")
            let truncated = try await client.upload("truncated.pdf")
            #expect(truncated.status == .unprocessableContent)
            let locked = try await client.upload("encrypted-aes256.pdf")
            #expect(locked.status == .unauthorized)
            #expect(try jsonObject(locked)["type"] as? String == "/problems/password-required")
            let wrong = try await client.upload("encrypted-aes256.pdf", password: "nope")
            #expect(wrong.status == .unauthorized)
            let text = try await client.execute(
                uri: "/documents", method: .post, headers: [.contentType: "text/plain"], body: ByteBuffer(string: "hi"))
            #expect(text.status == .unsupportedMediaType)
            let malformed = try await client.send("/documents", .post, json: "{\"files\": 3}")
            #expect(malformed.status == .badRequest)
            let list = try jsonObject(try await client.execute(uri: "/documents", method: .get))
            #expect((list["documents"] as? [Any])?.isEmpty == true)
            let stored = try FileManager.default.contentsOfDirectory(
                atPath: service.directory.url.resolvingSymlinksInPath().appendingPathComponent("store/files").path)
            #expect(stored.isEmpty)
        }
    }

    @Test("An encrypted upload with its password: later requests need the same password")
    func encryptedDocument() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let created = try await client.upload("encrypted-aes256.pdf", password: "userpw")
            #expect(created.status == .created)
            let info = try jsonObject(created)
            let id = try #require(info["id"] as? String)
            #expect(info["encrypted"] as? Bool == true)
            let password = HTTPField.Name("X-Document-Password")!
            #expect(try await client.execute(uri: "/documents/\(id)", method: .get).status == .unauthorized)
            #expect(
                try await client.execute(uri: "/documents/\(id)", method: .get, headers: [password: "wrong"]).status
                    == .unauthorized)
            #expect(
                try await client.execute(
                    uri: "/documents/\(id)/pages/1/text", method: .get, headers: [password: "userpw"]
                )
                .status == .ok)
        }
    }

    @Test("Registering files under a root: order kept; outside a root 403 (also through a symlink); missing 422")
    func register() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let first = try service.place("one-page.pdf")
            let second = try service.place("mixed-sizes.pdf")
            let response = try await client.send(
                "/documents", .post, json: #"{"files": ["\#(first.path)", "\#(second.path)"]}"#)
            #expect(response.status == .created)
            let info = try jsonObject(response)
            #expect(info["origin"] as? String == "registered")
            #expect(info["pageCount"] as? Int == 5)
            let files = try #require(info["files"] as? [[String: Any]])
            #expect(files.map { $0["path"] as? String } == [first.path, second.path])

            let outside = service.directory.url.resolvingSymlinksInPath().appendingPathComponent("outside.pdf")
            try Fixture.data("one-page.pdf").write(to: outside)
            let link = service.root.appendingPathComponent("link.pdf")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
            for path in [outside.path, link.path, service.root.path + "/../outside.pdf", "/etc/passwd"] {
                let refused = try await client.send("/documents", .post, json: #"{"files": ["\#(path)"]}"#)
                #expect(refused.status == .forbidden, "\(path)")
                #expect(try jsonObject(refused)["type"] as? String == "/problems/path-outside-roots")
            }
            let missing = try await client.send(
                "/documents", .post, json: #"{"files": ["\#(service.root.path)/missing.pdf"]}"#)
            #expect(missing.status == .unprocessableContent)
            #expect(try jsonObject(missing)["type"] as? String == "/problems/unusable-file")
            let directory = try await client.send("/documents", .post, json: #"{"files": ["\#(service.root.path)"]}"#)
            #expect(directory.status == .forbidden || directory.status == .unprocessableContent)
            let twice = try await client.send(
                "/documents", .post, json: #"{"files": ["\#(first.path)", "\#(first.path)"]}"#)
            #expect(twice.status == .badRequest)
            let empty = try await client.send("/documents", .post, json: #"{"files": []}"#)
            #expect(empty.status == .badRequest)
        }
    }

    @Test("Edits make the document dirty; save needs If-Match, writes the file and records a saved event")
    func editAndSave() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let path = try service.place("one-page.pdf")
            let created = try await client.send("/documents", .post, json: #"{"files": ["\#(path.path)"]}"#)
            let id = try #require(try jsonObject(created)["id"] as? String)
            let createdTag = try #require(created.headers[.eTag])
            let patched = try await client.send(
                "/documents/\(id)/metadata", .patch, json: #"{"title": "Edited", "author": null}"#,
                headers: [.contentType: "application/merge-patch+json"])
            #expect(patched.status == .ok)
            let info = try jsonObject(patched)
            #expect(info["state"] as? String == "dirty")
            #expect((info["metadata"] as? [String: Any])?["title"] as? String == "Edited")
            let annotated = try await client.send(
                "/documents/\(id)/annotations", .post,
                json:
                    #"{"kind": "note", "page": 1, "rect": {"x": 72, "y": 700, "width": 20, "height": 20}, "#
                    + #""contents": "hi"}"#
            )
            #expect(annotated.status == .ok)
            let tag = try #require(annotated.headers[.eTag])
            #expect(tag != createdTag && tag != patched.headers[.eTag])
            let badPage = try await client.send(
                "/documents/\(id)/annotations", .post,
                json: #"{"kind": "note", "page": 9, "rect": {"x": 72, "y": 700, "width": 20, "height": 20}}"#)
            #expect(badPage.status == .notFound)
            let badKind = try await client.send(
                "/documents/\(id)/annotations", .post,
                json: #"{"kind": "ink", "page": 1, "rect": {"x": 0, "y": 0, "width": 1, "height": 1}}"#)
            #expect(badKind.status == .badRequest)
            let unknownMember = try await client.send("/documents/\(id)/metadata", .patch, json: #"{"colour": "red"}"#)
            #expect(unknownMember.status == .badRequest)

            #expect(
                try await client.execute(uri: "/documents/\(id)/save", method: .post).status == .preconditionRequired)
            let stale = try await client.execute(
                uri: "/documents/\(id)/save", method: .post, headers: [.ifMatch: "\"0000\""])
            #expect(stale.status == .preconditionFailed)
            #expect(stale.headers[.eTag] == tag)
            // The tag from before the edits names a version that is gone.
            let beforeEdits = try await client.execute(
                uri: "/documents/\(id)/save", method: .post, headers: [.ifMatch: createdTag])
            #expect(beforeEdits.status == .preconditionFailed)
            let saved = try await client.execute(uri: "/documents/\(id)/save", method: .post, headers: [.ifMatch: tag])
            #expect(saved.status == .ok)
            let after = try jsonObject(saved)
            #expect(after["state"] as? String == "clean")
            #expect(saved.headers[.eTag] != tag)
            let onDisk = try Data(contentsOf: path)
            #expect(after["contentEtag"] as? String == "\"" + EntityTag(content: onDisk).opaqueTag + "\"")
            #expect(saved.headers[.eTag] == after["etag"] as? String)
            let events = try await service.events().map(\.type)
            #expect(events == [.created, .saved])
        }
    }

    @Test("a PUT of an open document reads the catalog once (its lane's check); a stale one is refused before its body, naming the current version; the answer is what the catalog holds")
    func replaceReadsTheCatalogOnce() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let created = try await client.upload("one-page.pdf")
            let id = try #require(try jsonObject(created)["id"] as? String)
            let tag = try #require(created.headers[.eTag])
            var headers: HTTPFields = [.contentType: "application/pdf", .ifMatch: tag]
            let before = service.catalog.readsMade
            let replaced = try await client.execute(
                uri: "/documents/\(id)/content", method: .put, headers: headers,
                body: ByteBuffer(bytes: try Fixture.data("mixed-sizes.pdf")))
            #expect(replaced.status == .ok)
            #expect(service.catalog.readsMade - before == 1)
            // What the answer says is what the catalog holds (a GET after the answers are dropped reads it).
            let answered = try jsonObject(replaced)
            let listed = try #require(
                (try jsonObject(try await client.execute(uri: "/documents", method: .get))["documents"]
                    as? [[String: Any]])?.first)
            #expect(answered["version"] as? Int == 2 && listed["version"] as? Int == 2)
            #expect(answered["updatedAt"] as? String == listed["updatedAt"] as? String)
            #expect(replaced.headers[.eTag] == listed["etag"] as? String)
            // The validator of version 1 is surely stale: refused before the body, with the current version.
            headers[.ifMatch] = tag
            let stale = try await client.execute(
                uri: "/documents/\(id)/content", method: .put, headers: headers,
                body: ByteBuffer(bytes: try Fixture.data("one-page.pdf")))
            #expect(stale.status == .preconditionFailed)
            #expect(stale.headers[.eTag] == replaced.headers[.eTag])
        }
    }

    @Test("PUT content replaces the file atomically (If-Match required); DELETE forgets the document")
    func replaceAndDelete() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let created = try await client.upload("one-page.pdf")
            let id = try #require(try jsonObject(created)["id"] as? String)
            let tag = try #require(created.headers[.eTag])
            let body = ByteBuffer(bytes: try Fixture.data("mixed-sizes.pdf"))
            let pdf: HTTPFields = [.contentType: "application/pdf"]
            #expect(
                try await client.execute(uri: "/documents/\(id)/content", method: .put, headers: pdf, body: body).status
                    == .preconditionRequired)
            var stale = pdf
            stale[.ifMatch] = "\"abc\""
            #expect(
                try await client.execute(uri: "/documents/\(id)/content", method: .put, headers: stale, body: body)
                    .status == .preconditionFailed)
            var current = pdf
            current[.ifMatch] = tag
            let notPDF = try await client.execute(
                uri: "/documents/\(id)/content", method: .put, headers: current, body: ByteBuffer(string: "nope"))
            #expect(notPDF.status == .unprocessableContent)
            let replaced = try await client.execute(
                uri: "/documents/\(id)/content", method: .put, headers: current, body: body)
            #expect(replaced.status == .ok)
            #expect(try jsonObject(replaced)["pageCount"] as? Int == 4)
            let newTag = try #require(replaced.headers[.eTag])
            let content = try await client.execute(uri: "/documents/\(id)/content", method: .get)
            #expect(Data(buffer: content.body) == (try Fixture.data("mixed-sizes.pdf")))

            #expect(try await client.execute(uri: "/documents/\(id)", method: .delete).status == .preconditionRequired)
            #expect(
                try await client.execute(uri: "/documents/\(id)", method: .delete, headers: [.ifMatch: tag]).status
                    == .preconditionFailed)
            #expect(
                try await client.execute(uri: "/documents/\(id)", method: .delete, headers: [.ifMatch: newTag]).status
                    == .noContent)
            #expect(try await client.execute(uri: "/documents/\(id)", method: .get).status == .notFound)
            #expect(try await service.events().map(\.type) == [.created, .changed, .deleted])
        }
    }

    @Test("An upload over the limit is 413 and nothing is kept")
    func uploadLimit() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let big = ByteBuffer(repeating: 0x25, count: 104_857_600 + 1)
            let response = try await client.execute(
                uri: "/documents", method: .post, headers: [.contentType: "application/pdf"], body: big)
            #expect(response.status == .contentTooLarge)
        }
    }
}
