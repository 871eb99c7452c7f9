import Foundation
import Testing

@testable import StoreClient

/// What ``DocumentEventFeed`` makes of events it cannot read, against a stand-in service (a Python script on
/// loopback) that sends what a real one would not.
@Suite("DocumentEventFeed: events it cannot read")
struct EventFeedTests {
    /// Serves one `GET /events`: an event of a type openapi.yaml does not list (id 1), a `created` (id 2), then one
    /// whose data is not an Event (id 3); then waits until the client closes. Prints its port first.
    static let script = #"""
        import json, socket
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.settimeout(30)
        print(server.getsockname()[1], flush=True)
        connection, _ = server.accept()
        connection.settimeout(30)
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = connection.recv(4096)
            if not chunk:
                break
            request += chunk
        events = [
            (1, "renamed", {"id": 1, "type": "renamed", "document": "d1", "etag": None, "at": "2026-11-29T06:00:00.000Z"}),
            (2, "created", {"id": 2, "type": "created", "document": "d2", "etag": "\"e-1\"", "version": 1,
                            "contentEtag": "\"e\"", "at": "2026-11-29T06:00:01.000Z"}),
            (3, "created", {"id": 3, "type": "created"}),
        ]
        body = "".join("id: %d\nevent: %s\ndata: %s\n\n" % (i, t, json.dumps(d)) for i, t, d in events)
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + body.encode())
        connection.recv(1)
        """#

    @Test("an event of a type this client does not know is passed over and the feed resumes after it; data that is not an Event ends the feed")
    func unknownTypeIsPassedOver() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { process.terminate() }
        let portLine = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(Int(portLine.trimmingCharacters(in: .whitespacesAndNewlines)))

        let client = try StoreClient(server: "http://127.0.0.1:\(port)")
        var iterator = client.events(after: 0, policy: ReconnectPolicy(maximumAttempts: 1)).makeAsyncIterator()
        let event = try await iterator.next()
        #expect(event?.id == 2 && event?.type == .created && event?.document == "d2" && event?.version == 1)
        #expect(iterator.lastEventID == 2)
        var ended: (any Error)?
        do { _ = try await iterator.next() } catch { ended = error }
        #expect((ended as? StoreClientError)?.code == .unexpectedResponse, "\(String(describing: ended))")
        try await client.shutdown()
    }
}
