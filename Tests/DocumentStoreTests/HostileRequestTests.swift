import DocumentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Requests a hostile or careless client sends: each is a 400 (or 422) problem that names what is wrong, and no
/// problem names a path inside the store directory.
@Suite("Hostile requests")
struct HostileRequestTests {
    @Test("A JSON member of the wrong type is named with the type it must have, not called \"not JSON\"")
    func wrongTypes() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let id = try #require(try jsonObject(try await client.upload("one-page.pdf"))["id"] as? String)
            let rect = #""rect": {"x": 72, "y": 700, "width": 20, "height": 20}"#
            let cases: [(String, String, String, String)] = [
                ("/documents/\(id)/annotations", #"{"kind": "note", "page": 1.5, \#(rect)}"#, "page", "whole number"),
                ("/documents/\(id)/annotations", #"{"kind": "note", "page": "1", \#(rect)}"#, "page", "whole number"),
                ("/documents/\(id)/annotations", #"{"kind": 3, "page": 1, \#(rect)}"#, "kind", "\"note\""),
                (
                    "/documents/\(id)/annotations",
                    #"{"kind": "note", "page": 1, "rect": {"x": "72", "y": 700, "width": 20, "height": 20}}"#,
                    "rect.x", "a number"
                ),
                ("/documents/\(id)/annotations", #"{"kind": "note", "page": 1}"#, "rect", "missing"),
                ("/documents", #"{"files": "a.pdf"}"#, "files", "an array"),
                ("/documents", #"{"files": ["a.pdf", 7]}"#, "files[1]", "a path"),
                ("/documents/\(id)/conflict/resolve", #"{"resolution": true}"#, "resolution", "\"reload\""),
                // A string outside the schema's enum, named with the values it may take (read from openapi.yaml).
                ("/documents/\(id)/annotations", #"{"kind": "ink", "page": 1, \#(rect)}"#, "kind", #""highlight", not"#),
                ("/documents/\(id)/conflict/resolve", #"{"resolution": "maybe"}"#, "resolution", #""close", not"#),
            ]
            for (uri, body, member, expected) in cases {
                let response = try await client.send(uri, .post, json: body)
                #expect(response.status == .badRequest, "\(body)")
                let problem = try jsonObject(response)
                let detail = problem["detail"] as? String ?? ""
                #expect(problem["parameter"] as? String == member, "\(body): \(detail)")
                #expect(detail.contains("\"\(member)\""), "\(body): \(detail)")
                #expect(detail.contains(expected), "\(body): \(detail)")
                #expect(!detail.contains("not JSON"), "\(body): \(detail)")
            }
            let notJSON = try await client.send("/documents/\(id)/annotations", .post, json: "{kind")
            #expect(notJSON.status == .badRequest)
            #expect((try jsonObject(notJSON)["detail"] as? String)?.contains("not JSON") == true)
        }
    }

    @Test("Members the schemas forbid (additionalProperties: false) are a 400 naming the member")
    func unknownMembers() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let id = try #require(try jsonObject(try await client.upload("one-page.pdf"))["id"] as? String)
            let path = try service.place("mixed-sizes.pdf").path
            let cases: [(String, String, String)] = [
                (
                    "/documents/\(id)/annotations",
                    #"{"kind": "note", "page": 1, "rect": {"x": 72, "y": 700, "width": 20, "height": 20}, "colour": 1}"#,
                    "colour"
                ),
                (
                    "/documents/\(id)/annotations",
                    #"{"kind": "note", "page": 1, "rect": {"x": 72, "y": 700, "width": 20, "height": 20, "z": 0}}"#,
                    "rect.z"
                ),
                ("/documents/\(id)/conflict/resolve", #"{"resolution": "close", "force": true}"#, "force"),
                (
                    "/documents/\(id)/annotations",
                    #"{"kind": "note", "page": 1, "rect": {"x": 72, "y": 700, "width": 20, "height": 20}, "rect.x": 1}"#,
                    "rect.x"
                ),
                ("/documents", #"{"files": ["\#(path)"], "password": "x"}"#, "password"),
            ]
            for (uri, body, member) in cases {
                let response = try await client.send(uri, .post, json: body)
                #expect(response.status == .badRequest, "\(body)")
                let problem = try jsonObject(response)
                #expect(problem["parameter"] as? String == member, "\(body)")
                #expect((problem["detail"] as? String)?.contains("\"\(member)\"") == true, "\(body)")
            }
            let list = try jsonObject(try await client.execute(uri: "/documents", method: .get))
            #expect((list["documents"] as? [Any])?.count == 1)  // the register with an unknown member made nothing
        }
    }

    @Test("A NUL in a metadata member or a registered path is a 400 naming it; nothing is cut")
    func nulInMetadata() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let id = try #require(try jsonObject(try await client.upload("one-page.pdf"))["id"] as? String)
            for member in ["title", "author", "subject", "keywords", "creator", "producer"] {
                let response = try await client.send(
                    "/documents/\(id)/metadata", .patch, json: #"{"\#(member)": "Safe\u0000Hidden"}"#)
                #expect(response.status == .badRequest, "\(member)")
                let problem = try jsonObject(response)
                #expect(problem["parameter"] as? String == member)
                #expect((problem["detail"] as? String)?.contains("NUL") == true)
            }
            let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
            #expect(info["state"] as? String == "clean")
            let file = try service.place("one-page.pdf")
            let path = try await client.send("/documents", .post, json: #"{"files": ["\#(file.path)\u0000.txt"]}"#)
            #expect(path.status == .badRequest)
            #expect(try jsonObject(path)["parameter"] as? String == "files[0]")
        }
    }

    @Test("An annotation rectangle with a width or height not above 0, or outside the page, is a 400 naming it")
    func badRectangles() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let id = try #require(try jsonObject(try await client.upload("one-page.pdf"))["id"] as? String)
            let cases: [(String, String)] = [
                (#"{"x": 100, "y": 100, "width": -20, "height": 20}"#, "rect.width"),
                (#"{"x": 100, "y": 100, "width": 20, "height": -20}"#, "rect.height"),
                (#"{"x": 100, "y": 100, "width": 0, "height": 20}"#, "rect.width"),
                (#"{"x": 100, "y": 100, "width": 20, "height": 1e300}"#, "rect.height"),
                (#"{"x": 600, "y": 100, "width": 20, "height": 20}"#, "rect"),
                (#"{"x": -30, "y": 100, "width": 20, "height": 20}"#, "rect"),
                (#"{"x": 100, "y": 780, "width": 20, "height": 20}"#, "rect"),
            ]
            for (rect, member) in cases {
                let response = try await client.send(
                    "/documents/\(id)/annotations", .post, json: #"{"kind": "highlight", "page": 1, "rect": \#(rect)}"#)
                #expect(response.status == .badRequest, "\(rect)")
                #expect(try jsonObject(response)["parameter"] as? String == member, "\(rect)")
            }
            let info = try jsonObject(try await client.execute(uri: "/documents/\(id)", method: .get))
            #expect(info["state"] as? String == "clean")
            let inside = try await client.send(
                "/documents/\(id)/annotations", .post,
                json: #"{"kind": "note", "page": 1, "rect": {"x": 0, "y": 0, "width": 612, "height": 792}}"#)
            #expect(inside.status == .ok)
        }
    }

    @Test("No problem of the document routes names a path inside the store directory (the pixel limit included)")
    func noStorePaths() async throws {
        let service = try DocumentService()
        try await service.run { client in
            // one-page.pdf with a 6120 × 7920 point page: past the pixel limit at any allowed resolution.
            var bytes = try Fixture.data("one-page.pdf")
            let small = Data("[ 0 0 612 792 ]".utf8)
            let large = Data("[0 0 6120 7920]".utf8)
            let range = try #require(bytes.range(of: small))
            bytes.replaceSubrange(range, with: large)
            let created = try await client.execute(
                uri: "/documents", method: .post, headers: [.contentType: "application/pdf"],
                body: ByteBuffer(bytes: bytes))
            #expect(created.status == .created)
            let id = try #require(try jsonObject(created)["id"] as? String)
            let tag = try #require(created.headers[.eTag])
            let store = service.configuration.storeDirectory
            let storePaths = [store.path, store.resolvingSymlinksInPath().path]
            var problems: [TestResponse] = []
            let image = try await client.execute(uri: "/documents/\(id)/pages/1/image?dpi=144", method: .get)
            #expect(image.status == .badRequest)
            #expect(try jsonObject(image)["parameter"] as? String == "dpi")
            problems.append(image)
            problems.append(
                try await client.execute(
                    uri: "/documents/\(id)/content", method: .put,
                    headers: [.contentType: "application/pdf", .ifMatch: tag], body: ByteBuffer(string: "%PDF-1.4 no")))
            problems.append(try await client.execute(uri: "/documents/\(id)/pages/9/text", method: .get))
            problems.append(
                try await client.send("/documents/\(id)/conflict/resolve", .post, json: #"{"resolution": "close"}"#))
            problems.append(
                try await client.send("/documents", .post, json: #"{"files": ["\#(store.path)/files/\#(id).pdf"]}"#))
            for problem in problems {
                let body = String(buffer: problem.body)
                #expect(problem.headers[.contentType] == "application/problem+json", "\(body)")
                for path in storePaths { #expect(!body.contains(path), "\(body)") }
            }
        }
    }
}
