// Coordination latencies measured call by call with the system allocator.
//
// package-benchmark's MallocInterposer hooks every malloc (about 0.1 µs each here); a presenter round makes
// about 160 allocations, so CoordinationBenchmarks reads about 20 µs high on it. This program times the same
// operations without the interposer and prints medians.
//   cd Benchmarks && swift run -c release CoordinationLatency
import Dispatch
import FileCoordination
import Foundation

/// A presenter on its own serial queue that signals when its reacquirer has run.
final class RoundPresenter: FilePresenter, @unchecked Sendable {
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
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Runs `body` `count` times after a warm-up and returns the median in microseconds.
func median(_ count: Int, _ body: () throws -> Void) rethrows -> Double {
    for _ in 0..<1_000 { try body() }
    var samples: [UInt64] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
        let start = now()
        try body()
        samples.append(now() - start)
    }
    samples.sort()
    return Double(samples[samples.count / 2]) / 1_000
}

// The in-process figures of issue 4: this process's own arbiter, unless QUIRE_COORDINATION_SCOPE says otherwise
// (CrossProcessLatency measures the shared arbiter in another process).
var coordination = try CoordinationConfiguration.fromEnvironment()
if ProcessInfo.processInfo.environment["QUIRE_COORDINATION_SCOPE"] == nil { coordination.scope = .process }
try CoordinationService.configure(coordination)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-latency-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
func file(_ name: String) -> URL {
    let url = directory.appendingPathComponent(name)
    _ = FileManager.default.createFile(atPath: url.path, contents: Data("0".utf8))
    return url
}

let plain = file("plain.txt")
let read = try median(50_000) { try FileCoordinator().coordinate(readingItemAt: plain) { _ in } }
let write = try median(50_000) { try FileCoordinator().coordinate(writingItemAt: plain) { _ in } }

let presented = file("presented.txt")
let presenter = RoundPresenter(url: presented)
FileCoordinator.addFilePresenter(presenter)
let round = try median(20_000) {
    try FileCoordinator().coordinate(writingItemAt: presented) { _ in }
    presenter.reacquired.wait()
}
FileCoordinator.removeFilePresenter(presenter)

let contended = file("contended.txt")
var rates: [Double] = []
for _ in 0..<10 {
    let start = now()
    DispatchQueue.concurrentPerform(iterations: 2) { _ in
        for _ in 0..<5_000 { try? FileCoordinator().coordinate(writingItemAt: contended) { _ in } }
    }
    rates.append(10_000 / (Double(now() - start) / 1e9))
}
rates.sort()

func format(_ value: Double) -> String { String(format: "%.2f", value) }
print("uncontended coordinated read, median:            \(format(read)) µs   (target ≤ 5)")
print("uncontended coordinated write, median:           \(format(write)) µs   (target ≤ 5)")
print("write with one presenter, to its reacquirer:     \(format(round)) µs  (target ≤ 50)")
print("2 contending writers, median of 10 runs:         \(Int(rates[rates.count / 2])) grants/s (target ≥ 100,000)")
