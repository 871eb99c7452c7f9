import DocumentStore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Upload bodies stream to disk within the limit and the service's budget of bytes in flight.
@Suite("Upload limits")
struct UploadLimitsTests {
    /// The start of a PDF upload's head, up to its length header.
    static let pdfPost = "POST /documents HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\n"

    /// The files waiting in `<store>/incoming`.
    static func incoming(_ store: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: store.appendingPathComponent("incoming").path)) ?? []
    }

    /// Sends a chunked body of `total` bytes in 64 KiB chunks (stops early when the service closes).
    static func sendChunked(_ connection: RawConnection, total: Int) {
        let chunk = String(repeating: "x", count: 65_536)
        var sent = 0
        while sent < total {
            guard (try? connection.send("10000\r\n" + chunk + "\r\n")) != nil else { return }
            sent += 65_536
        }
        try? connection.send("0\r\n\r\n")
    }

    @Test("a chunked body is cut at the limit with 413; the connection closes and no temporary file stays")
    func chunkedOverLimit() async throws {
        try await ConnectionLimitsTests.withService(maxUploadBytes: 1 << 20) { port, store in
            let connection = try RawConnection(port: port)
            try connection.send(
                Self.pdfPost + "Transfer-Encoding: chunked\r\n\r\n"
            )
            Self.sendChunked(connection, total: 4 << 20)
            let result = connection.read(timeout: .seconds(10))
            #expect(result.closed)
            #expect(result.text.contains("HTTP/1.1 413 "), "\(result.text.prefix(400))")
            #expect(result.text.contains("the request body is larger than the limit of 1048576 bytes"))
            try await Task.sleep(for: .milliseconds(200))
            #expect(Self.incoming(store).isEmpty)
        }
    }

    @Test(
        "beyond the budget of upload bytes in flight, a new upload gets 503 with Retry-After; then the budget is back")
    func budget() async throws {
        try await ConnectionLimitsTests.withService(maxUploadBytes: 1 << 20, uploadBudgetBytes: 100_000) {
            port, store in
            let holder = try RawConnection(port: port)
            try holder.send(
                Self.pdfPost + "Content-Length: 90000\r\n\r\n%PDF-"
            )
            try await Task.sleep(for: .milliseconds(300))
            let refused = try RawConnection(port: port)
            try refused.send(
                Self.pdfPost + "Content-Length: 20000\r\n\r\n")
            let answer = refused.read(timeout: .seconds(5))
            #expect(answer.text.hasPrefix("HTTP/1.1 503 "), "\(answer.text)")
            #expect(answer.text.lowercased().contains("retry-after: 5"), "\(answer.text)")
            #expect(answer.text.contains("/problems/upload-budget-exhausted"), "\(answer.text)")
            #expect(Self.incoming(store).count == 1)
            // The holder goes away: its file goes, its bytes come back.
            holder.shutdown()
            try await Task.sleep(for: .milliseconds(500))
            #expect(Self.incoming(store).isEmpty)
            let pdf = try Fixture.data("one-page.pdf")
            let uploader = try RawConnection(port: port)
            try uploader.send(
                Self.pdfPost + "Content-Length: \(pdf.count)\r\n\r\n"
            )
            try uploader.send(bytes: Array(pdf))
            let created = uploader.read(timeout: .seconds(10)) { $0.contains("\r\n\r\n{") && $0.hasSuffix("}") }
            #expect(created.text.hasPrefix("HTTP/1.1 201 "), "\(created.text.prefix(300))")
        }
    }

    @Test("a body trickled below the minimum rate is cut with 408 and its budget released, though never idle")
    func trickledBodyReleasesBudget() async throws {
        try await ConnectionLimitsTests.withService(
            maxUploadBytes: 1 << 20, uploadBudgetBytes: 100_000,
            bodyPace: (minimumRate: 2_000, grace: .seconds(1), timeout: .seconds(600))
        ) { port, store in
            // It declares 90,000 bytes (most of the budget) and sends one every 300 ms: never idle for the 2 s
            // idle timeout, far below 2,000 bytes a second.
            let holder = try RawConnection(port: port)
            try holder.send(Self.pdfPost + "Content-Length: 90000\r\n\r\n%")
            var answer = (text: "", closed: false)
            for _ in 0..<40 where !answer.closed {
                guard (try? holder.send("P")) != nil else { break }
                let read = holder.read(timeout: .milliseconds(300))
                answer.text += read.text
                answer.closed = read.closed
            }
            answer.text += holder.read(timeout: .seconds(2)).text
            #expect(answer.text.hasPrefix("HTTP/1.1 408 "), "\(answer.text.prefix(400))")
            #expect(answer.text.contains("/problems/body-too-slow"), "\(answer.text)")
            #expect(answer.text.contains(#""minimumBytesPerSecond":2000"#), "\(answer.text)")
            // Its file and its bytes in the budget are gone: a new upload is taken.
            let gone = ContinuousClock.now + .seconds(5)
            while !Self.incoming(store).isEmpty, ContinuousClock.now < gone {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(Self.incoming(store).isEmpty)
            let pdf = try Fixture.data("one-page.pdf")
            let uploader = try RawConnection(port: port)
            try uploader.send(Self.pdfPost + "Content-Length: \(pdf.count)\r\n\r\n")
            try uploader.send(bytes: Array(pdf))
            let created = uploader.read(timeout: .seconds(10)) { $0.contains("\r\n\r\n{") && $0.hasSuffix("}") }
            #expect(created.text.hasPrefix("HTTP/1.1 201 "), "\(created.text.prefix(300))")
        }
    }

    @Test("a replace of an unknown document is refused (404) before its body is read; the connection closes")
    func replaceRefusedBeforeBody() async throws {
        try await ConnectionLimitsTests.withService { port, store in
            let connection = try RawConnection(port: port)
            try connection.send(
                "PUT /documents/unknown/content HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\n"
                    + "If-Match: *\r\nContent-Length: 50000000\r\n\r\n%PDF-")
            let answer = connection.read(timeout: .seconds(5))
            #expect(answer.text.hasPrefix("HTTP/1.1 404 "), "\(answer.text)")
            #expect(answer.closed)
            #expect(Self.incoming(store).isEmpty)
        }
    }

    @Test("many concurrent chunked uploads over the limit stay on disk: the resident peak grows by little")
    func memoryBounded() async throws {
        let limit = 48 << 20
        try await ConnectionLimitsTests.withService(maxUploadBytes: limit) { port, store in
            let before = try Self.residentKilobytes("VmRSS")
            try Self.resetPeak()
            // The clients block in their sends: on threads of their own, never the service's cooperative pool.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let group = DispatchGroup()
                for _ in 0..<6 {
                    group.enter()
                    Thread {
                        defer { group.leave() }
                        guard let connection = try? RawConnection(port: port) else { return }
                        try? connection.send(
                            "POST /documents HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\n"
                                + "Transfer-Encoding: chunked\r\n\r\n")
                        Self.sendChunked(connection, total: limit + (4 << 20))
                        _ = connection.read(timeout: .seconds(15))
                    }.start()
                }
                group.notify(queue: .global()) { done.resume() }
            }
            let peak = try Self.residentKilobytes("VmHWM")
            #expect(peak - before < 120_000, "the resident peak grew by \((peak - before) / 1024) MiB")
            try await Task.sleep(for: .milliseconds(200))
            #expect(Self.incoming(store).isEmpty)
        }
    }

    /// A line of `/proc/self/status`, in kB.
    static func residentKilobytes(_ name: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix(name + ":") })
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    /// Resets the process's resident peak (VmHWM) to its current size.
    static func resetPeak() throws {
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }
}
