@testable import DocumentStore
@testable import StoreCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The content fast path (``ContentFastPath``): which requests it takes, and, over a real socket, that its answers
/// are the route's, in request order, and follow the file's changes.
@Suite("The content fast path")
struct ContentFastPathTests {
    static let id = "abcdefgh23456789"

    static func head(
        _ method: HTTPMethod = .GET, _ uri: String = "/documents/\(id)/content", version: HTTPVersion = .http1_1,
        _ headers: [(String, String)] = [("Host", "x")]
    ) -> HTTPRequestHead {
        HTTPRequestHead(version: version, method: method, uri: uri, headers: HTTPHeaders(headers))
    }

    @Test("takes only a plain GET of a valid document id's content; everything else goes to the route")
    func whichRequests() throws {
        let taken = try #require(ContentFastPath.documentID(of: Self.head()))
        #expect(taken.rawValue == Self.id)
        #expect(ContentFastPath.documentID(of: Self.head(.GET, "/documents/\(Self.id)/content", [])) != nil)
        let declined: [HTTPRequestHead] = [
            Self.head(.HEAD), Self.head(.PUT), Self.head(.POST),
            Self.head(version: .http1_0),
            Self.head(.GET, "/documents/\(Self.id)/content?x=1"),
            Self.head(.GET, "/documents/\(Self.id)"),
            Self.head(.GET, "/documents//content"),
            Self.head(.GET, "/documents/../content"),
            Self.head(.GET, "/documents/ABC%2Fx/content"),
            Self.head(.GET, "/documents/\(Self.id)/content/"),
            Self.head(.GET, "/documents/\(Self.id)/x/content"),
        ] + [
            ("Range", "bytes=0-9"), ("If-None-Match", "\"a\""), ("If-Match", "*"), ("If-Range", "\"a\""),
            ("If-Modified-Since", "Mon, 23 Nov 2026 07:29:32 GMT"),
            ("If-Unmodified-Since", "Mon, 23 Nov 2026 07:29:32 GMT"), ("Content-Length", "0"),
            ("Transfer-Encoding", "chunked"), ("Expect", "100-continue"), ("Connection", "close"),
            ("connection", "keep-alive, Close"), ("Upgrade", "h2c"),
        ].map { Self.head(.GET, "/documents/\(Self.id)/content", [("Host", "x"), $0]) }
        for head in declined {
            #expect(ContentFastPath.documentID(of: head) == nil, "\(head.method) \(head.uri) \(head.headers)")
        }
    }

    @Test("a graceful shutdown's close waits for the answer being made; other requests pass to Hummingbird")
    func quiesceWaitsForAnswer() async throws {
        let service = try DocumentService()
        try await service.run { client in
            let (id, _, _) = try await CoherenceTests.registered(service, client)
            let fastPath = ContentFastPath(
                library: service.library, metrics: StoreMetrics(), logger: Logger(label: "quire.test"),
                logLevel: .trace, serverName: "quire")
            let recorder = EventRecorder()
            let channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandlers(ContentFastPathHandler(fastPath: fastPath), recorder)

            try channel.writeInbound(HTTPServerRequestPart.head(Self.head(.GET, "/documents/\(id)/content")))
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            #expect(recorder.events.isEmpty)  // held: an answer is being made
            try channel.writeInbound(HTTPServerRequestPart.end(nil))
            guard case .head(let head) = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
                Issue.record("no response head")
                return
            }
            #expect(head.status == .ok)
            #expect(recorder.events.count == 1)  // passed on once the answer was sent
            #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil)  // Hummingbird saw nothing

            // Another request goes through, and so does the next close request.
            try channel.writeInbound(HTTPServerRequestPart.head(Self.head(.GET, "/health")))
            #expect(try channel.readInbound(as: HTTPServerRequestPart.self) != nil)
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            #expect(recorder.events.count == 2)
            _ = try channel.finish(acceptAlreadyClosed: true)
        }
    }

    @Test("over a socket: the route's bytes and headers, pipelined answers in order, a changed file's new bytes")
    func liveAnswers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let base = directory.url.resolvingSymlinksInPath()
        let root = base.appendingPathComponent("root", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let file = root.appendingPathComponent("doc.pdf")
        let original = try Fixture.data("hundred-pages.pdf")
        try original.write(to: file)
        var logger = Logger(label: "quire.test")
        logger.logLevel = .critical
        let app = try buildApplication(
            configuration: StoreConfiguration(
                storeDirectory: base.appendingPathComponent("store"), port: 0, roots: [root]),
            logger: logger)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let created = try await client.execute(
                uri: "/documents", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"files": ["\#(file.path)"]}"#))
            #expect(created.status == .created)
            let id = try #require(created.headers[.location]?.split(separator: "/").last.map(String.init))
            // The content is tagged with its bytes' tag (the info's contentEtag).
            let createdInfo = try #require(
                try JSONSerialization.jsonObject(with: Data(buffer: created.body)) as? [String: Any])
            let tag = try #require(createdInfo["contentEtag"] as? String)

            // The plain request (fast path) and a conditional one that does not match (the route): same answer.
            let plain = try RawHTTP.exchange(port: port, ["GET /documents/\(id)/content HTTP/1.1\r\nHost: x\r\n\r\n"])
            let routed = try RawHTTP.exchange(
                port: port, ["GET /documents/\(id)/content HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"other\"\r\n\r\n"])
            for response in [plain[0], routed[0]] {
                #expect(response.status == 200)
                #expect(response.body == original)
                #expect(response.headers["etag"] == tag)
                #expect(response.headers["content-type"] == "application/pdf")
                #expect(response.headers["accept-ranges"] == "bytes")
                #expect(response.headers["content-length"] == String(original.count))
                #expect(response.headers["server"] == "quire")
                #expect(response.headers["date"]?.hasSuffix(" GMT") == true)
                // Hummingbird's request ids: hex, 17 to 32 digits (its random high half is not zero-padded).
                let requestID = response.headers["x-request-id"] ?? ""
                #expect((17...32).contains(requestID.count) && requestID.allSatisfy(\.isHexDigit), "\(requestID)")
            }
            #expect(Set(plain[0].headers.keys) == Set(routed[0].headers.keys))

            // Pipelined on one connection: a routed request, then two the fast path could take, then routed ones;
            // the answers come in the order of the requests.
            let pipelined = try RawHTTP.exchange(
                port: port,
                [
                    "GET /documents/\(id) HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "GET /documents/\(id)/content HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "GET /documents/\(id)/content HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "GET /documents/\(id)/content HTTP/1.1\r\nHost: x\r\nRange: bytes=0-4\r\n\r\n"
                        + "GET /documents/unknown0000000000/content HTTP/1.1\r\nHost: x\r\n\r\n"
                ])
            #expect(pipelined.map(\.status) == [200, 200, 200, 200, 206, 404])
            #expect(pipelined[0].headers["content-type"] == "application/json")
            #expect(pipelined[1].body == original)
            #expect(pipelined[2].headers["content-type"] == "application/json")
            #expect(pipelined[3].body == original)
            #expect(pipelined[4].body == original.prefix(5))

            // The file changes behind the service's back: the fast path never answers with the old bytes once
            // the change is known, and the new answer carries the new tag.
            let changed = try Fixture.data("mixed-sizes.pdf")
            try changed.write(to: file, options: .atomic)
            let deadline = ContinuousClock.now + .seconds(10)
            var latest = plain[0]
            while latest.body != changed, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                latest = try RawHTTP.exchange(
                    port: port, ["GET /documents/\(id)/content HTTP/1.1\r\nHost: x\r\n\r\n"])[0]
                #expect(latest.body == original || latest.body == changed)
            }
            #expect(latest.body == changed)
            #expect(latest.headers["etag"] != tag)
            let info = try await client.execute(uri: "/documents/\(id)", method: .get)
            #expect(try jsonObject(info)["contentEtag"] as? String == latest.headers["etag"])

            // Counted as the route's requests.
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(String(buffer: metrics.body).contains(#"route="/documents/{id}/content""#))
        }
    }
}

/// Records the user events that reach it.
final class EventRecorder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    var events: [Any] = []

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        events.append(event)
    }
}

/// A few HTTP/1.1 exchanges over one raw TCP connection: what the service's own client would hide (pipelining).
enum RawHTTP {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends each of `writes` in turn on one connection, then reads one response per request line sent (bounded:
    /// five seconds without a byte fails).
    static func exchange(port: Int, _ writes: [String]) throws -> [Response] {
        let connection = try RawConnection(port: port)
        defer { withExtendedLifetime(connection) {} }  // it closes the descriptor when released
        let descriptor = connection.descriptor
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var expected = 0
        for text in writes {
            let bytes = Array(text.utf8)
            guard write(descriptor, bytes, bytes.count) == bytes.count else {
                throw Failure(description: "write: \(errno)")
            }
            expected += text.components(separatedBy: "\r\n\r\n").count - 1
        }
        var buffer = Data()
        var responses: [Response] = []
        while responses.count < expected {
            if let (response, used) = parse(buffer) {
                responses.append(response)
                buffer.removeFirst(used)
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else {
                throw Failure(description: "read after \(responses.count) of \(expected) responses: \(count), \(errno)")
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
        return responses
    }

    /// One whole response at the start of `buffer` (Content-Length framing), and the bytes it used.
    static func parse(_ buffer: Data) -> (Response, Int)? {
        guard let end = buffer.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let lines = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
            .components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = end.upperBound
        guard buffer.endIndex - bodyStart >= length else { return nil }
        let body = Data(buffer[bodyStart..<(bodyStart + length)])
        return (Response(status: status, headers: headers, body: body), bodyStart + length - buffer.startIndex)
    }
}
