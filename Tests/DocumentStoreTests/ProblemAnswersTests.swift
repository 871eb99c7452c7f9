import Foundation
import Testing

@testable import DocumentStore
@testable import StoreCore

/// Every 4xx the service answers, whoever refuses the request (the router, a controller, the body decoder, the
/// connection's own handlers), is an RFC 9457 problem document with `type`, `title` and `detail`, and a limit names
/// itself.
@Suite("Problem answers")
struct ProblemAnswersTests {
    /// A request, and what its answer must be.
    struct Cause: Sendable, CustomStringConvertible {
        var name: String
        var request: String
        var status: Int
        /// Extension members the problem must have, with their value.
        var members: [String: String] = [:]
        /// Text the detail must contain.
        var detailNames: String?

        var description: String { name }
    }

    static let id = "0123456789abcdef"
    static let bigBody = "{\"files\": [\"" + String(repeating: "a", count: 1_100_000) + "\"]}"

    static let causes: [Cause] = [
        Cause(name: "unknown route", request: get("/nowhere"), status: 404),
        Cause(name: "wrong method", request: request("DELETE", "/health"), status: 405, detailNames: "GET"),
        Cause(
            name: "body that is not JSON", request: request("POST", "/documents", json: "not json"), status: 400),
        Cause(
            name: "metadata patch that is not JSON",
            request: request("PATCH", "/documents/\(id)/metadata", json: "{title"), status: 400),
        Cause(
            name: "annotation that is not JSON",
            request: request("POST", "/documents/\(id)/annotations", json: "[1,"), status: 400),
        Cause(
            name: "resolution that is not JSON",
            request: request("POST", "/documents/\(id)/conflict/resolve", json: "reload"), status: 400),
        Cause(
            name: "JSON body too large", request: request("POST", "/documents", json: bigBody), status: 413,
            members: ["limit": "1048576"]),
        Cause(
            name: "duplicate key in a registration",
            request: request("POST", "/documents", json: #"{"files": [], "files": ["a.pdf"]}"#), status: 400,
            members: ["parameter": "files"], detailNames: "\"files\" appears more than once"),
        Cause(
            name: "duplicate key in a metadata patch",
            request: request("PATCH", "/documents/\(id)/metadata", json: #"{"title": "a", "title": "b"}"#),
            status: 400, members: ["parameter": "title"], detailNames: "\"title\" appears more than once"),
        Cause(
            name: "duplicate nested key in an annotation",
            request: request(
                "POST", "/documents/\(id)/annotations",
                json: #"{"kind": "note", "page": 1, "rect": {"x": 1, "y": 1, "width": 2, "height": 2, "x": 3}}"#),
            status: 400, members: ["parameter": "rect.x"], detailNames: "\"rect.x\" appears more than once"),
        Cause(name: "limit that is not a number", request: get("/documents?limit=abc"), status: 400),
        Cause(name: "unknown state", request: get("/documents?state=bogus"), status: 400),
        Cause(name: "unknown document", request: get("/documents/\(id)"), status: 404),
        Cause(name: "malformed id", request: get("/documents/..%2Fetc"), status: 400),
        Cause(
            name: "wrong media type",
            request: request("POST", "/documents", contentType: "text/plain", body: "hello"), status: 415),
        Cause(name: "garbage Last-Event-ID", request: get("/events", headers: "Last-Event-ID: soon\r\n"), status: 400),
        Cause(name: "page zero", request: get("/documents/\(id)/pages/0/text"), status: 400),
        Cause(name: "unknown asset", request: get("/assets/nothing.js"), status: 404),
        Cause(
            name: "declared upload over the limit",
            request: "POST /documents HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\n"
                + "Content-Length: 999999999999\r\nConnection: close\r\n\r\n",
            status: 413, members: ["limit": "104857600"]),
        Cause(name: "malformed request line", request: "GET /health HTTP/1.1 extra\r\n\r\n", status: 400),
    ]

    static func get(_ target: String, headers: String = "") -> String {
        "GET \(target) HTTP/1.1\r\nHost: x\r\n\(headers)Connection: close\r\n\r\n"
    }

    static func request(_ method: String, _ target: String, json: String) -> String {
        let type = method == "PATCH" ? "application/merge-patch+json" : "application/json"
        return request(method, target, contentType: type, body: json)
    }

    static func request(_ method: String, _ target: String, contentType: String? = nil, body: String = "")
        -> String
    {
        "\(method) \(target) HTTP/1.1\r\nHost: x\r\n" + (contentType.map { "Content-Type: \($0)\r\n" } ?? "")
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
    }

    @Test("every 4xx cause is answered with a problem document: type, title, detail, and the limit of a limit")
    func everyCause() async throws {
        let bare = try BareLibrary()
        defer { Task { await bare.remove() } }
        try await bare.withLiveService { port in
            for cause in Self.causes {
                let connection = try RawConnection(port: port)
                try? connection.send(cause.request)
                let answer = connection.read(timeout: .seconds(10))
                let parts = answer.text.components(separatedBy: "\r\n\r\n")
                let head = parts[0].lowercased()
                let body = parts.dropFirst().joined(separator: "\r\n\r\n")
                #expect(head.hasPrefix("http/1.1 \(cause.status) "), "\(cause): \(head)")
                #expect(head.contains("content-type: application/problem+json"), "\(cause): \(head)")
                let problem = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
                for member in ["type", "title", "detail"] {
                    let value = problem[member] as? String ?? ""
                    #expect(!value.isEmpty, "\(cause): no \(member) in \(body.prefix(300))")
                }
                #expect(problem["status"] as? Int == cause.status, "\(cause): \(body.prefix(300))")
                for (member, value) in cause.members {
                    #expect("\(problem[member] ?? "none")" == value, "\(cause): \(member) in \(body.prefix(300))")
                }
                if let names = cause.detailNames {
                    #expect((problem["detail"] as? String ?? "").contains(names), "\(cause): \(body.prefix(300))")
                }
            }
        }
    }

    @Test("a wrong method names the methods the path accepts in Allow")
    func allowHeader() async throws {
        let bare = try BareLibrary()
        defer { Task { await bare.remove() } }
        try await bare.withLiveService { port in
            let connection = try RawConnection(port: port)
            try connection.send(Self.request("POST", "/documents/\(Self.id)/content"))
            let head = connection.read(timeout: .seconds(10)).text.components(separatedBy: "\r\n\r\n")[0].lowercased()
            #expect(head.hasPrefix("http/1.1 405 "), "\(head)")
            #expect(head.contains("\r\nallow: get, head, put"), "\(head)")
        }
    }

    @Test("duplicate member names are found at any depth, through escapes, and only within one object")
    func duplicateKeys() {
        #expect(JSONDuplicateKeys.first(in: Data(#"{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]}"#.utf8)) == nil)
        #expect(JSONDuplicateKeys.first(in: Data(#"{"a": 1, "\u0061": 2}"#.utf8)) == "a")
        #expect(JSONDuplicateKeys.first(in: Data(#"{"x": {"y": "a", "z": "y", "y": 1}}"#.utf8)) == "x.y")
        #expect(JSONDuplicateKeys.first(in: Data(#"{"f": [{"n": 1, "n": 2}]}"#.utf8)) == "f[].n")
        #expect(JSONDuplicateKeys.first(in: Data(#"{"k\"": 1, "k\\": 2, "k\"": 3}"#.utf8)) == "k\"")
        #expect(JSONDuplicateKeys.first(in: Data(#"{"\ud83d\ude00": 1, "😀": 2}"#.utf8)) == "😀")
    }
}
