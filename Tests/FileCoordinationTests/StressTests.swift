import FileCoordination
import Foundation
import Testing

/// Many threads, many coordinators, presenters coming and going, on one small tree.
@Suite("Stress")
struct StressTests {
    static let threads = 8
    static let operationsPerThread = 2_000
    static let fileSize = 4_096
    /// The whole run must end within this, or the test fails (the worker threads are then abandoned).
    static let runBound: Double = 120

    @Test("8 threads × 2,000 mixed coordinated accesses with presenters coming and going: exact counter, no deadlock")
    func mixedLoad() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let layout = try StressLayout(tree: tree)
        let run = StressRun(layout: layout)

        let finished = DispatchGroup()
        for index in 0..<Self.threads {
            finished.enter()
            let thread = Thread {
                run.work(seed: UInt64(index + 1), operations: Self.operationsPerThread)
                finished.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        let ended = finished.wait(timeout: .now() + Self.runBound) == .success
        try #require(ended, "the workers did not finish within \(Self.runBound) s: a deadlock or a lost wake-up")

        for problem in run.problems.value.prefix(20) { Issue.record("\(problem)") }
        #expect(run.problems.value.isEmpty)
        #expect(run.increments.value > 0)
        let counter = try String(contentsOf: layout.counter, encoding: .utf8)
        #expect(Int(counter) == run.increments.value, "lost updates on the counter")
        #expect(run.operations.value == Self.threads * Self.operationsPerThread)

        // Every worker removed its presenters, and nothing is left claimed: a coordinator with a short timeout
        // gets the whole tree at once.
        #expect(run.leftoverPresenters().isEmpty)
        let probe = FileCoordinator()
        probe.timeout = .seconds(2)
        try probe.coordinate(writingItemAt: layout.directory, options: .forDeleting) { _ in }
    }
}

/// The tree: a directory with three files (one a counter) and a subdirectory holding a file.
struct StressLayout: Sendable {
    let directory: URL
    let files: [URL]
    let counter: URL
    let subdirectory: URL
    let subfile: URL

    init(tree: TemporaryTree) throws {
        directory = try tree.directory("D")
        let filler = String(repeating: "a", count: StressTests.fileSize)
        files = [try tree.file("D/a.txt", contents: filler), try tree.file("D/b.txt", contents: filler)]
        counter = try tree.file("D/counter.txt", contents: "0")
        subdirectory = try tree.directory("D/sub")
        subfile = try tree.file("D/sub/s.txt", contents: filler)
    }

    /// Every item, for presenters.
    var items: [URL] { [directory, counter, subdirectory, subfile] + files }
    /// The files whose content is one repeated letter.
    var uniformFiles: [URL] { files + [subfile] }
}

/// The shared state of one stress run; each worker thread calls ``work(seed:operations:)``.
final class StressRun: Sendable {
    let layout: StressLayout
    let increments = Locked(0)
    let operations = Locked(0)
    let problems = Locked<[String]>([])
    private let presenters = Locked<[StressPresenter]>([])

    init(layout: StressLayout) { self.layout = layout }

    func leftoverPresenters() -> [StressPresenter] { presenters.value }

    func work(seed: UInt64, operations count: Int) {
        var random = SplitMix64(seed: seed)
        var mine: [(presenter: StressPresenter, leavesAfter: Int)] = []
        for step in 0..<count {
            if random.next(100) < 10 {
                let presenter = StressPresenter(url: layout.items[random.next(layout.items.count)])
                FileCoordinator.addFilePresenter(presenter)
                presenters.withLock { $0.append(presenter) }
                mine.append((presenter, step + 1 + random.next(8)))
            }
            let own = mine.isEmpty || random.next(4) != 0 ? nil : mine[random.next(mine.count)].presenter
            do {
                try perform(random.next(100), &random, ownPresenter: own)
            } catch {
                problems.withLock { $0.append("step \(step) of thread \(seed): \(error)") }
            }
            operations.withLock { $0 += 1 }
            let leaving = mine.filter { $0.leavesAfter <= step }
            mine.removeAll { $0.leavesAfter <= step }
            for (presenter, _) in leaving { leave(presenter) }
        }
        for (presenter, _) in mine { leave(presenter) }
    }

    private func leave(_ presenter: StressPresenter) {
        FileCoordinator.removeFilePresenter(presenter)
        presenters.withLock { $0.removeAll { $0 === presenter } }
    }

    private func coordinator(_ own: StressPresenter?) -> FileCoordinator {
        let coordinator = FileCoordinator(filePresenter: own)
        coordinator.timeout = .seconds(30)
        return coordinator
    }

    private func perform(_ roll: Int, _ random: inout SplitMix64, ownPresenter own: StressPresenter?) throws {
        let uniform = layout.uniformFiles[random.next(layout.uniformFiles.count)]
        switch roll {
        case 0..<30:
            try coordinator(own).coordinate(readingItemAt: uniform) { url in try checkUniform(url) }
        case 30..<50:
            let letter = UInt8(ascii: "a") + UInt8(random.next(26))
            try coordinator(own).coordinate(writingItemAt: uniform) { url in
                try Data(repeating: letter, count: StressTests.fileSize).write(to: url)
            }
        case 50..<75:
            try coordinator(own).coordinate(writingItemAt: layout.counter) { url in
                let value = Int(try String(contentsOf: url, encoding: .utf8)) ?? -1_000_000
                try Data(String(value + 1).utf8).write(to: url)
                increments.withLock { $0 += 1 }
            }
        case 75..<80:
            try coordinator(own).coordinate(readingItemAt: layout.counter, options: .withoutChanges) { url in
                if Int(try String(contentsOf: url, encoding: .utf8)) == nil { problem("torn counter") }
            }
        case 80..<85:
            try coordinator(own).coordinate(readingItemAt: layout.directory) { url in
                let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
                if !names.contains("counter.txt") { problem("directory listing without the counter: \(names)") }
            }
        case 85..<90:
            // Excludes everything inside the subdirectory (as a move would; moves are left out, see the
            // known issue "arbiter-move-escapes-exclusion"): the file inside must be whole and stay so.
            try coordinator(own).coordinate(writingItemAt: layout.subdirectory, options: .forDeleting) { url in
                let inside = url.appendingPathComponent("s.txt")
                try checkUniform(inside)
                let letter = UInt8(ascii: "A") + UInt8(random.next(26))
                try Data(repeating: letter, count: StressTests.fileSize).write(to: inside)
                try checkUniform(inside)
            }
        case 90..<95:
            let source = layout.uniformFiles[random.next(layout.uniformFiles.count)]
            try coordinator(own).coordinate(readingItemAt: source, writingItemAt: uniform) { from, to in
                let data = try Data(contentsOf: from)
                if from != to { try data.write(to: to) }
            }
        default:
            let intent = FileAccessIntent.readingIntent(with: uniform)
            let done = Signal()
            let failure = Locked<(any Error)?>(nil)
            coordinator(own).coordinate(with: [intent], queue: StressRun.intentQueue) { error in
                failure.value = error
                if error == nil {
                    do { try self.checkUniform(intent.url) } catch { failure.value = error }
                }
                done.signal()
            }
            guard done.wait(60) else { throw StressFailure.accessorNeverCalled }
            if let error = failure.value { throw error }
        }
    }

    private static let intentQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        return queue
    }()

    private func checkUniform(_ url: URL) throws {
        let data = try Data(contentsOf: url)
        guard data.count == StressTests.fileSize, let first = data.first, data.allSatisfy({ $0 == first }) else {
            problem("\(url.lastPathComponent) torn: \(data.count) bytes")
            return
        }
    }

    private func problem(_ text: String) { problems.withLock { $0.append(text) } }
}

enum StressFailure: Error {
    case accessorNeverCalled
}

/// A presenter for the stress test: the protocol's defaults answer every message at once.
final class StressPresenter: FilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue = OperationQueue()

    init(url: URL) {
        presentedItemURL = url
        presentedItemOperationQueue.maxConcurrentOperationCount = 1
    }
}

/// A small deterministic generator (SplitMix64), one per worker.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 }

    /// A number in `0..<bound`.
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(bound))
    }
}

extension SplitMix64 {
    /// True `percent` times in a hundred.
    mutating func chance(_ percent: Int) -> Bool { next(100) < percent }

    /// One of `values` at random, picked from them in sorted order so that a seed gives the same pick whatever
    /// the collection's own order (nil if none).
    mutating func pick<T: Comparable>(_ values: some Collection<T>) -> T? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[next(sorted.count)]
    }
}
