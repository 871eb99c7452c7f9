import Foundation
import StoreClient
import Testing

/// An idle service burns no processor: nothing polls while nothing happens (the short polling windows after a
/// request, before a thread sleeps, end with the request).
@Suite("An idle service")
struct IdleServiceTests {
    /// User plus system time of process `pid` so far, in seconds (`/proc/PID/stat`, fields 14 and 15).
    static func processorSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the command's closing parenthesis: field 3 (state) onwards.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The service and its children (the PDF workers), by pid.
    static func family(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let children = tasks.flatMap { task -> [Int32] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
        return [pid] + children
    }

    @Test("after a request, the service and its PDF workers spend under 2 % of a processor over 10 idle seconds")
    func idleServiceBurnsNothing() async throws {
        let service = try RunningService(sandbox: try CoordinationSandbox())
        defer { service.stop() }
        let client = try service.client()
        let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        let uploaded = try await client.upload(pdf: pdf)
        _ = try await client.pageText(of: uploaded.id, page: 1)  // the workers have worked, and now wait
        try await client.shutdown()
        let family = Self.family(of: service.process.pid)
        #expect(family.count >= 2, "the service and at least one PDF worker: \(family)")
        try await Task.sleep(for: .seconds(1))  // the polling windows after the last request (2 ms at most) are over
        let before = family.compactMap(Self.processorSeconds).reduce(0, +)
        try await Task.sleep(for: .seconds(10))
        let after = family.compactMap(Self.processorSeconds).reduce(0, +)
        #expect(after - before < 0.2, "\(after - before) s of processor time in 10 idle seconds")
    }
}
