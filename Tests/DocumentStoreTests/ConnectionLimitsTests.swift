import DocumentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Request-header and idle timeouts, and answers that close the connection instead of reading a body nobody wants.
@Suite("Connection limits")
struct ConnectionLimitsTests {
    /// Runs a live service with short timeouts.
    static func withService(
        maxUploadBytes: Int = 104_857_600, uploadBudgetBytes: Int = 536_870_912,
        keepAliveInterval: Duration = .seconds(15),
        bodyPace: (minimumRate: Int, grace: Duration, timeout: Duration)? = nil,
        _ body: @escaping @Sendable (_ port: Int, _ store: URL) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("store", isDirectory: true)
        var logger = Logger(label: "quire.test")
        logger.logLevel = .critical
        var configuration = StoreConfiguration(
            storeDirectory: store, port: 0, maxUploadBytes: maxUploadBytes, uploadBudgetBytes: uploadBudgetBytes,
            headerTimeout: .seconds(1), idleTimeout: .seconds(2))
        if let bodyPace {
            configuration.minBodyBytesPerSecond = bodyPace.minimumRate
            configuration.bodyGrace = bodyPace.grace
            configuration.bodyTimeout = bodyPace.timeout
        }
        let app = try buildApplication(
            configuration: configuration, logger: logger, keepAliveInterval: keepAliveInterval)
        try await app.test(.live) { client in try await body(try #require(client.port), store) }
    }

    @Test("a client that sends half a request line and then nothing is closed within the header timeout")
    func slowHeader() async throws {
        try await Self.withService { port, _ in
            let connection = try RawConnection(port: port)
            try connection.send("GET /hea")
            let start = ContinuousClock.now
            let result = connection.read(timeout: .seconds(6))
            let elapsed = ContinuousClock.now - start
            #expect(result.closed, "still open after \(elapsed)")
            #expect(result.text.isEmpty, "\(result.text)")
            #expect(elapsed < .seconds(3))
            #expect(elapsed > .milliseconds(700))
        }
    }

    @Test("a client that connects and sends nothing is closed within the header timeout")
    func silentClient() async throws {
        try await Self.withService { port, _ in
            let connection = try RawConnection(port: port)
            let result = connection.read(timeout: .seconds(6))
            #expect(result.closed)
        }
    }

    @Test("a keep-alive connection silent after its answer is closed after the idle timeout, not before")
    func idleKeepAlive() async throws {
        try await Self.withService { port, _ in
            let connection = try RawConnection(port: port)
            try connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = connection.read(timeout: .seconds(5)) { $0.contains("\r\n\r\n{") && $0.hasSuffix("}") }
            #expect(answer.text.hasPrefix("HTTP/1.1 200 OK"), "\(answer.text)")
            let start = ContinuousClock.now
            let rest = connection.read(timeout: .seconds(8))
            let elapsed = ContinuousClock.now - start
            #expect(rest.closed)
            #expect(elapsed > .milliseconds(1500), "closed after \(elapsed)")
            #expect(elapsed < .seconds(4), "closed after \(elapsed)")
        }
    }

    @Test("an event stream whose keep-alive comments come more often than the idle timeout stays open")
    func eventStreamSurvives() async throws {
        try await Self.withService(keepAliveInterval: .milliseconds(250)) { port, _ in
            let connection = try RawConnection(port: port)
            try connection.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            let result = connection.read(timeout: .seconds(5))
            #expect(!result.closed, "\(result.text)")
            #expect(result.text.components(separatedBy: ": keep-alive").count > 8, "\(result.text)")
        }
    }

    @Test("a declared Content-Length over the limit is a 413 with the limit, before the body; the connection closes")
    func declaredLengthOverLimit() async throws {
        try await Self.withService(maxUploadBytes: 1000) { port, _ in
            let connection = try RawConnection(port: port)
            try connection.send(
                UploadLimitsTests.pdfPost + "Content-Length: 2147483648\r\n\r\n%PDF-"
            )
            let result = connection.read(timeout: .seconds(5))
            #expect(result.closed, "\(result.text)")
            #expect(result.text.hasPrefix("HTTP/1.1 413 "), "\(result.text)")
            #expect(result.text.lowercased().contains("connection: close"), "\(result.text)")
            #expect(result.text.contains("the request body is larger than the limit of 1000 bytes"), "\(result.text)")
        }
    }
}
