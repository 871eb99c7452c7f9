import FileCoordination
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A host that stops answering (SIGSTOP) must not take its clients down with it: connecting and waiting happen
/// off Swift's cooperative pool, so unrelated async work in a client keeps its pace.
///
/// The client is a process of its own (`CoordinationProbe pace`), so that its cooperative pool serves nothing
/// but the accesses and the timer: other suites running in parallel in the test process cannot disturb it.
@Suite("A stalled host", .serialized)
struct StalledHostTests {
    @Test(
        "a SIGSTOPped host does not stall unrelated async work in a client process; its requests end, bounded",
        .timeLimit(.minutes(1)))
    func stalledHostDoesNotStallTheCooperativePool() throws {
        let arbiter = try ArbiterDirectory()
        defer { arbiter.remove() }
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("stalled.txt", contents: "x")
        let host = try ProbeProcess(["host"], arbiter: arbiter)
        defer {
            host.signal(SIGCONT)
            host.signal(SIGKILL)
            _ = host.exitStatus(within: 10)
        }
        try #require(host.waitForLine { $0.hasPrefix("hosting ") })
        host.signal(SIGSTOP)

        // More coordinated accesses than the client's pool has threads, each waiting for the stopped host, and
        // a timer task ticking every 10 ms beside them.
        let client = try ProbeProcess(
            ["pace", file.path, "--accesses", "\(ProcessInfo.processInfo.activeProcessorCount * 4)"], arbiter: arbiter)
        defer { _ = client.exitStatus(within: 10) }
        try #require(client.waitForLine(30) { $0.hasPrefix("longest ") })
        let longest = client.printed.first { $0.hasPrefix("longest ") }.flatMap { Int($0.dropFirst(8)) } ?? .max
        #expect(longest < 500, "the client's timer task was held up for \(longest) ms")

        // Every access ends: refused as unavailable (the host did not answer hello within 2 s) or granted once
        // the host runs again; none hangs, none fails otherwise.
        host.signal(SIGCONT)
        try #require(client.waitForLine(30) { $0.hasPrefix("outcomes ") })
        let outcomes = client.printed.first { $0.hasPrefix("outcomes ") } ?? ""
        #expect(outcomes.hasSuffix("other=0"), "\(outcomes)")
        #expect(client.exitStatus() == 0)
    }
}
