// Cross-process coordination figures (issue 5), timed call by call with the system allocator:
//   1. uncontended coordinated write from this process to a host in another process;
//   2. a write in process B → presentedItemDidChange in this process (from B's call to our callback);
//   3. 4 processes × 10,000 coordinated writes on one file: grants per second in total, beside the floor of a
//      direct hand-over in shared memory with a host told of each hand-over;
//   4. an uncoordinated append → presentedItemDidChange (debounce 20 ms).
// Run: cd Benchmarks && swift run -c release CrossProcessLatency [rounds]   (STORM_PROCESSES=N writers in part 3; STORM_ONLY=1 runs part 3 alone)
import FileCoordination
import Foundation
import SocketFloor
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

func median(_ values: [UInt64]) -> Double {
    let sorted = values.sorted()
    return Double(sorted[sorted.count / 2]) / 1000
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

final class TimingPresenter: FilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    let observesUncoordinatedChanges: Bool
    let changed: @Sendable (UInt64) -> Void

    init(url: URL, observes: Bool, changed: @escaping @Sendable (UInt64) -> Void) {
        presentedItemURL = url
        observesUncoordinatedChanges = observes
        self.changed = changed
    }

    func presentedItemDidChange() { changed(monotonicNanoseconds()) }
}

/// A child process: this executable with a role, reading commands on stdin and answering on stdout.
final class Child: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    var buffer = Data()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        process.environment = childEnvironment
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    func line() -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return "" }
            buffer.append(chunk)
        }
    }

    func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }
}

let arguments = CommandLine.arguments
let role = arguments.count > 1 ? arguments[1] : "main"

switch role {
case "host":
    try CoordinationService.hostInForeground { _ in say("ready") }
    exit(0)

case "writer":
    // Writes the file each time a line arrives; answers with the instant the call started.
    let url = URL(fileURLWithPath: arguments[2])
    let coordinator = FileCoordinator()
    say("ready")
    while readLine() != nil {
        let start = monotonicNanoseconds()
        try coordinator.coordinate(writingItemAt: url) { _ in }
        say("\(start)")
    }
    exit(0)

case "storm":
    let url = URL(fileURLWithPath: arguments[2])
    let count = Int(arguments[3])!
    let coordinator = FileCoordinator()
    try coordinator.coordinate(readingItemAt: url) { _ in }
    say("ready")
    _ = readLine()
    for _ in 0..<count { try coordinator.coordinate(writingItemAt: url) { _ in } }
    say("done")
    exit(0)

default:
    break
}

let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 2_000 : 2_000
let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("quire-xp-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
// This process is configured with a value; the children read the same settings from their environment.
let coordinationDirectory = scratch.appendingPathComponent("coordination")
try CoordinationService.configure(CoordinationConfiguration(scope: .user, directory: coordinationDirectory))
let childEnvironment = ProcessInfo.processInfo.environment.merging([
    "QUIRE_COORDINATION_DIR": coordinationDirectory.path, "QUIRE_COORDINATION_SCOPE": "user",
]) { _, new in new }
defer { try? FileManager.default.removeItem(at: scratch) }
let file = scratch.appendingPathComponent("document.pdf")
_ = FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8))

let host = try Child(["host"])
precondition(host.line() == "ready")

// 0. The floor: a C ping-pong of 64 bytes each way over a socketpair between two processes, both sleeping in
// read(2); and the same with both polling without sleeping (what a round trip costs without wake-ups, which on an
// idle virtual machine cost more than the rest).
func socketFloor(spinning: Bool = false) -> UInt64 {
    var samples = [UInt64](repeating: 0, count: rounds * 5)
    let result =
        spinning
        ? quire_socketpair_pingpong_spinning(Int32(samples.count), 1_000, 64, &samples)
        : quire_socketpair_pingpong(Int32(samples.count), 1_000, 64, &samples)
    precondition(result == 0)
    return samples.sorted()[samples.count / 2]
}
// STORM_ONLY=1 runs part 3 alone (for profiling it).
let stormOnly = ProcessInfo.processInfo.environment["STORM_ONLY"] == "1"
let floorBefore = stormOnly ? 0 : socketFloor()
let spinningFloorBefore = stormOnly ? 0 : socketFloor(spinning: true)

// 1. Uncontended write, client → host in another process.
if !stormOnly {
    let coordinator = FileCoordinator()
    for _ in 0..<1_000 { try coordinator.coordinate(writingItemAt: file) { _ in } }
    var samples: [UInt64] = []
    samples.reserveCapacity(rounds * 5)
    for _ in 0..<(rounds * 5) {
        let start = monotonicNanoseconds()
        try coordinator.coordinate(writingItemAt: file) { _ in }
        samples.append(monotonicNanoseconds() - start)
    }
    let floorAfter = socketFloor()
    let spinningFloorAfter = socketFloor(spinning: true)
    let floor = Double(min(floorBefore, floorAfter)) / 1000
    let spinningFloor = Double(min(spinningFloorBefore, spinningFloorAfter)) / 1000
    say(String(format: "C socketpair ping-pong floor (64 bytes each way): median %.1f µs (before %.1f, after %.1f)",
        floor, Double(floorBefore) / 1000, Double(floorAfter) / 1000))
    say(String(format: "the same, both sides polling without sleeping: median %.1f µs (before %.1f, after %.1f)",
        spinningFloor, Double(spinningFloorBefore) / 1000, Double(spinningFloorAfter) / 1000))
    say(String(format: "uncontended coordinated write, client → host process: median %.1f µs = %.2f× the floor, %.2f× the polling floor (target ≤ 1.3×)",
        median(samples), median(samples) / floor, median(samples) / spinningFloor))
}

// 2. Write in B → presentedItemDidChange here.
if !stormOnly {
    let changes = DispatchSemaphore(value: 0)
    let last = Mutex(UInt64(0))
    let presenter = TimingPresenter(url: file, observes: false) { time in
        last.withLock { $0 = time }
        changes.signal()
    }
    FileCoordinator.addFilePresenter(presenter)
    try CoordinationService.synchronize()
    let writer = try Child(["writer", file.path])
    precondition(writer.line() == "ready")
    var samples: [UInt64] = []
    for index in 0..<(rounds / 2) {
        writer.send("")
        let started = UInt64(writer.line())!
        changes.wait()
        // The first rounds (at most 50, a quarter of a short run) warm up and are not counted.
        if index >= min(50, rounds / 8) { samples.append(last.withLock { $0 } - started) }
    }
    FileCoordinator.removeFilePresenter(presenter)
    say(String(format: "write in process B → presentedItemDidChange in A: median %.1f µs (target ≤ 150)", median(samples)))
}

// 3. Four processes, 10,000 coordinated writes each, on one file.
do {
    let count = 10_000
    let processes = Int(ProcessInfo.processInfo.environment["STORM_PROCESSES"] ?? "") ?? 4
    let storms = try (0..<processes).map { _ in try Child(["storm", file.path, "\(count)"]) }
    for storm in storms { precondition(storm.line() == "ready") }
    let start = monotonicNanoseconds()
    for storm in storms { storm.send("go") }
    for storm in storms { precondition(storm.line() == "done") }
    let seconds = Double(monotonicNanoseconds() - start) / 1e9
    let rate = Double(processes * count) / seconds
    say(String(format: "%d processes × %d coordinated writes on one file: %.0f grants/s (target ≥ 40,000 with 4)", processes, count, rate))
    // The floor of a design that hands an access over directly, in shared memory, and tells the host after.
    let direct = quire_handover_floor(Int32(processes), Int32(count))
    say(String(format: "  floor of a direct hand-over (FIFO ticket in shared memory, %d processes polling, a host told of each over a socket): %.0f/s; the storm is %.2f× of it", processes, direct, rate / direct))
}

// 4. Uncoordinated change → presenter callback.
if !stormOnly {
    let changes = DispatchSemaphore(value: 0)
    let last = Mutex(UInt64(0))
    let presenter = TimingPresenter(url: file, observes: true) { time in
        last.withLock { $0 = time }
        changes.signal()
    }
    FileCoordinator.addFilePresenter(presenter)
    try CoordinationService.synchronize()
    var samples: [UInt64] = []
    let handle = try FileHandle(forWritingTo: file)
    for _ in 0..<40 {
        usleep(60_000)
        let start = monotonicNanoseconds()
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("y".utf8))
        // A late notice of an earlier write (the storm's) may come first: wait for one after this write.
        var observed: UInt64 = 0
        while observed < start, changes.wait(timeout: .now() + 2) == .success { observed = last.withLock { $0 } }
        guard observed >= start else { continue }
        samples.append(observed - start)
    }
    FileCoordinator.removeFilePresenter(presenter)
    say(String(format: "uncoordinated append → presentedItemDidChange: median %.1f ms (target ≤ debounce 20 + 10)", median(samples) / 1000))
}
host.process.terminate()
host.process.waitUntilExit()
