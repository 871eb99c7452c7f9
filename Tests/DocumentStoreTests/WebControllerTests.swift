import DocumentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("WebController: the web page and its assets")
struct WebControllerTests {
    @Test("GET / is the page: HTML, a strong tag, a strict policy, nosniff; it loads its assets from /assets/")
    func page() async throws {
        try await RouteTests.withRouter { client, _ in
            let response = try await client.execute(uri: "/", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/html; charset=utf-8")
            #expect(response.headers[.eTag] == WebAsset.page.tag.headerValue)
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
            #expect(response.headers[.cacheControl] == "no-cache")
            let policy = try #require(response.headers[.contentSecurityPolicy])
            #expect(policy.contains("default-src 'self'"))
            #expect(policy.contains("script-src 'self';"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            #expect(policy.contains("frame-ancestors 'none'"))
            let html = String(buffer: response.body)
            #expect(html.hasPrefix("<!doctype html>"))
            #expect(html.contains(#"<script type="module" src="/assets/app.js"></script>"#))
            // No inline script or style: the policy would block it.
            #expect(!html.contains("<script>") && !html.contains("style="))
            let head = try await client.execute(uri: "/", method: .head)
            #expect(head.status == .ok)
        }
    }

    @Test(
        "every asset is served with its media type",
        arguments: [
            ("app.js", "text/javascript; charset=utf-8"), ("api.js", "text/javascript; charset=utf-8"),
            ("events.js", "text/javascript; charset=utf-8"), ("list.js", "text/javascript; charset=utf-8"),
            ("viewer.js", "text/javascript; charset=utf-8"), ("app.css", "text/css; charset=utf-8"),
            ("icon.svg", "image/svg+xml"),
        ])
    func assets(name: String, mediaType: String) async throws {
        try await RouteTests.withRouter { client, _ in
            let response = try await client.execute(uri: "/assets/\(name)", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == mediaType)
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
            #expect(response.headers[.contentSecurityPolicy] == WebController.contentSecurityPolicy)
            let asset = try #require(WebAsset.assets[name])
            #expect(Data(buffer: response.body) == Data(asset.bytes))
            #expect(response.headers[.eTag] == EntityTag(content: asset.bytes).headerValue)
            let onDisk = try Data(
                contentsOf: packageRoot.appendingPathComponent("Sources/DocumentStore/Resources/web/\(name)"))
            #expect(onDisk == Data(asset.bytes))
        }
    }

    @Test("every module the scripts import, and every file the page names, is an asset")
    func referencesResolve() throws {
        var texts = [String(decoding: WebAsset.page.bytes, as: UTF8.self)]
        texts += WebAsset.assets.values.filter { $0.name.hasSuffix(".js") }
            .map { String(decoding: $0.bytes, as: UTF8.self) }
        var referenced: Set<String> = []
        for text in texts {
            for match in text.matches(of: /(?:from |src=|href=)"(?:\.|\/assets)\/([a-z]+\.[a-z]+)"/) {
                referenced.insert(String(match.output.1))
            }
        }
        #expect(referenced.contains("app.js") && referenced.contains("viewer.js"))
        #expect(referenced.subtracting(WebAsset.assets.keys).isEmpty, "\(referenced)")
        #expect(Set(WebAsset.assets.keys).subtracting(referenced).isEmpty, "assets nothing loads")
    }

    @Test("If-None-Match with the tag is 304 with the tag and the headers; another tag is 200")
    func notModified() async throws {
        try await RouteTests.withRouter { client, _ in
            for uri in ["/", "/assets/app.js"] {
                let first = try await client.execute(uri: uri, method: .get)
                let tag = try #require(first.headers[.eTag])
                let again = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag])
                #expect(again.status == .notModified)
                #expect(again.headers[.eTag] == tag)
                #expect(again.body.readableBytes == 0)
                #expect(again.headers[.contentSecurityPolicy] != nil)
                let listed = try await client.execute(
                    uri: uri, method: .get, headers: [.ifNoneMatch: #""0000", \#(tag)"#])
                #expect(listed.status == .notModified)
                let other = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: #""0000""#])
                #expect(other.status == .ok)
                #expect(other.body.readableBytes > 0)
            }
        }
    }

    @Test(
        "unknown assets and paths that climb out are 404 problems, never files",
        arguments: [
            "/assets/nothing.js", "/assets/", "/assets/../Package.swift", "/assets/..%2FPackage.swift",
            "/assets/%2e%2e/%2e%2e/Package.swift", "/assets/app.js/../../openapi.yaml", "/assets/app.js.map",
            "/assets/web/app.js", "/index.html", "/Package.swift", "/assets/APP.JS",
        ])
    func unknown(uri: String) async throws {
        try await RouteTests.withRouter { client, _ in
            let response = try await client.execute(uri: uri, method: .get)
            // The router may normalize `..` (to `/Package.swift`, `/openapi.yaml`): no path reads a file.
            if uri.hasSuffix("/openapi.yaml") && response.status == .ok {
                #expect(Data(buffer: response.body) == Data(OpenAPIController.document))
                return
            }
            #expect(response.status == .notFound, "\(uri)")
            #expect(response.headers[.contentType] == ProblemDetails.mediaType)
            let body = String(buffer: response.body)
            #expect(!body.contains("swift-tools-version") && !body.contains("import PackageDescription"))
        }
    }

    @Test("with a token, the page and its assets load without it (only changes need it)")
    func tokenNotNeeded() async throws {
        try await RouteTests.withRouter(token: "s3cret") { client, _ in
            let page = try await client.execute(uri: "/", method: .get)
            let script = try await client.execute(uri: "/assets/app.js", method: .get)
            let change = try await client.execute(uri: "/probe/echo", method: .post)
            #expect(page.status == .ok)
            #expect(script.status == .ok)
            #expect(change.status == .unauthorized)
        }
    }

    @Test("a clean document's page image answers 304 to its tag without a render; a dirty one's is sent again")
    func pageImageTag() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let path = try service.place("one-page.pdf")
            let created = try await client.send("/documents", .post, json: #"{"files": ["\#(path.path)"]}"#)
            let id = try #require(try jsonObject(created)["id"] as? String)
            let uri = "/documents/\(id)/pages/1/image?dpi=12"
            let image = try await client.execute(uri: uri, method: .get)
            #expect(image.status == .ok)
            let tag = try #require(image.headers[.eTag])
            let cached = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag])
            #expect(cached.status == .notModified)
            #expect(cached.headers[.eTag] == tag)
            let badDPI = try await client.execute(
                uri: "/documents/\(id)/pages/1/image?dpi=0", method: .get, headers: [.ifNoneMatch: tag])
            #expect(badDPI.status == .badRequest)
            let noPage = try await client.execute(
                uri: "/documents/\(id)/pages/2/image?dpi=12", method: .get, headers: [.ifNoneMatch: tag])
            #expect(noPage.status == .notFound)
            let edited = try await client.send(
                "/documents/\(id)/annotations", .post,
                json: #"{"kind": "highlight", "page": 1, "rect": {"x": 10, "y": 10, "width": 200, "height": 100}}"#)
            #expect(edited.status == .ok)
            let dirty = try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag])
            #expect(dirty.status == .ok)
            #expect(Data(buffer: dirty.body).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        }
    }
}
