// package-benchmark suite for in-process file coordination (QUIRE_COORDINATION_SCOPE=process).
//
// Run from the repository root with `make bench`, or:
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --target CoordinationBenchmarks
// Targets (issue 4): uncontended read/write ≤ 5 µs median; write with one presenter on another queue
// (relinquish → didChange → reacquire) ≤ 50 µs median; 2 contending writers ≥ 100,000 grants/s.

import Benchmark
import Dispatch
import FileCoordination
import Foundation

/// A presenter on its own serial queue that signals when its reacquirer runs (the end of a presenter round).
private final class RoundPresenter: FilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    let reacquired = DispatchSemaphore(value: 0)

    init(url: URL) { presentedItemURL = url }

    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        writer { self.reacquired.signal() }
    }

    func presentedItemDidChange() {}
}

private let directory: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("quire-coordination-bench-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

private func file(_ name: String) -> URL {
    let url = directory.appendingPathComponent(name)
    _ = FileManager.default.createFile(atPath: url.path, contents: Data("0".utf8))
    return url
}

let benchmarks: @Sendable () -> Void = {
    // The in-process figures of issue 4: this process's own arbiter (CrossProcessLatency measures the shared one).
    var coordination = (try? CoordinationConfiguration.fromEnvironment()) ?? CoordinationConfiguration()
    if ProcessInfo.processInfo.environment["QUIRE_COORDINATION_SCOPE"] == nil { coordination.scope = .process }
    try? CoordinationService.configure(coordination)
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 100,
        maxDuration: .seconds(3),
        maxIterations: 100_000
    )

    let plain = file("plain.txt")
    Benchmark("Uncontended coordinated read (new coordinator, no presenters)") { benchmark in
        for _ in benchmark.scaledIterations {
            try FileCoordinator().coordinate(readingItemAt: plain) { blackHole($0) }
        }
    }

    Benchmark("Uncontended coordinated write (new coordinator, no presenters)") { benchmark in
        for _ in benchmark.scaledIterations {
            try FileCoordinator().coordinate(writingItemAt: plain) { blackHole($0) }
        }
    }

    let presented = file("presented.txt")
    // Wall clock only: counting mallocs (about 160 per round) through the interposer adds its own cost.
    Benchmark(
        "Coordinated write with one presenter on another queue (to its reacquirer)",
        configuration: .init(metrics: [.wallClock, .throughput])
    ) { benchmark in
        let presenter = RoundPresenter(url: presented)
        FileCoordinator.addFilePresenter(presenter)
        defer { FileCoordinator.removeFilePresenter(presenter) }
        for _ in benchmark.scaledIterations {
            try FileCoordinator().coordinate(writingItemAt: presented) { blackHole($0) }
            presenter.reacquired.wait()
        }
    }

    let contended = file("contended.txt")
    Benchmark(
        "2 threads contending writers on one file (10,000 grants)",
        configuration: .init(metrics: [.wallClock, .throughput], timeUnits: .milliseconds, maxIterations: 20)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                for _ in 0..<5_000 {
                    try? FileCoordinator().coordinate(writingItemAt: contended) { blackHole($0) }
                }
            }
        }
    }
}
