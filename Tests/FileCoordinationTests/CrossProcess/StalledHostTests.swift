import FileCoordination
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A host that stops answering (SIGSTOP) must not take the client process down with it: connecting and
/// waiting happen off Swift's cooperative pool, so unrelated async work keeps its pace.
@Suite("A stalled host", .serialized)
struct StalledHostTests {
    @Test(
        "a SIGSTOPped host does not stall unrelated async work in a client process; its requests end, bounded",
        .timeLimit(.minutes(1)))
    func stalledHostDoesNotStallTheCooperativePool() async throws {
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

        // A domain of this process that uses the stopped host: more coordinated accesses than the pool has
        // threads, each of which must wait for a host that does not answer.
        let domain = CoordinationDomain(
            configuration: CoordinationConfiguration(scope: .user, directory: URL(fileURLWithPath: arbiter.path)))
        let accesses = Task {
            await withTaskGroup(of: Result<Void, any Error>.self) { group in
                for _ in 0..<(ProcessInfo.processInfo.activeProcessorCount * 4) {
                    group.addTask {
                        let coordinator = FileCoordinator(domain: domain)
                        coordinator.timeout = .seconds(20)
                        return await Result { () async throws in
                            try await coordinator.coordinate(with: [.writingIntent(with: file)]) { _ in }
                        }
                    }
                }
                var results: [Result<Void, any Error>] = []
                for await result in group { results.append(result) }
                return results
            }
        }

        // Meanwhile a timer task ticks every 10 ms for 1.5 s: the longest gap between two ticks.
        let clock = ContinuousClock()
        var last = clock.now
        var longest = Duration.zero
        for _ in 0..<150 {
            try await Task.sleep(for: .milliseconds(10))
            let now = clock.now
            longest = max(longest, now - last)
            last = now
        }
        #expect(longest < .milliseconds(500), "the timer task was held up for \(longest)")

        // Every access ends: granted once the host runs again, or refused as unavailable (a host that did not
        // answer hello in time); none hangs.
        host.signal(SIGCONT)
        let results = await accesses.value
        #expect(results.count == ProcessInfo.processInfo.activeProcessorCount * 4)
        for result in results {
            switch result {
            case .success: break
            case .failure(let error):
                guard case FileCoordinationError.arbiterUnavailable = error else {
                    Issue.record("an access failed with \(error)")
                    continue
                }
            }
        }
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing body.
    init(_ body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
