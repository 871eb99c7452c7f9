import DocumentStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Clients that go away in the middle of a request: nothing is written half, and the service keeps serving.
@Suite("Clients that disconnect")
struct DisconnectTests {
    /// Opens a TCP connection to the loopback port, sends `text`, and closes it at once.
    static func sendAndHangUp(port: Int, _ text: String) throws {
        try RawConnection(port: port).send(text)
    }

    @Test("An upload cut off mid-body and an event stream dropped mid-way leave the store whole and serving")
    func midRequestDisconnects() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.url.appendingPathComponent("store", isDirectory: true)
        var logger = Logger(label: "quire.test")
        logger.logLevel = .critical
        let app = try buildApplication(
            configuration: StoreConfiguration(storeDirectory: store, port: 0), logger: logger,
            keepAliveInterval: .milliseconds(50))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let pdf = try Fixture.data("one-page.pdf")
            try Self.sendAndHangUp(
                port: port,
                "POST /documents HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\nContent-Length: \(pdf.count)\r\n\r\n"
                    + String(decoding: pdf.prefix(300), as: UTF8.self))
            try Self.sendAndHangUp(port: port, "GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            try await Task.sleep(for: .milliseconds(200))  // let the service notice both hang-ups
            let health = try await client.execute(uri: "/health", method: .get)
            #expect(health.status == .ok)
            let list = try await client.execute(uri: "/documents", method: .get)
            #expect(String(buffer: list.body) == #"{"documents":[],"next":null}"#)
            let files = try FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("files").path)
            #expect(files.isEmpty)
            let upload = try await client.execute(
                uri: "/documents", method: .post, headers: [.contentType: "application/pdf"],
                body: ByteBuffer(bytes: pdf))
            #expect(upload.status == .created)
        }
    }
}
