// The figures of issue 6, timed call by call with the system allocator; prints medians and ratios.
//   cd Benchmarks && swift run -c release DocumentLatency [rounds]
// 1. Opening the 100-page fixture: `Document(url:)` (coordinated provider, default `user` scope) against
//    `PDFDocument(data:)` on the bytes read with Foundation (Poppler alone).
// 2. Another coordinator writes new content → the Document's `documentUnderlyingFileChanged` notification is
//    posted: from the end of the writer's accessor (bytes in place) to the observer's callback; the clean
//    document has reloaded the 100 pages by then. Same process, then a writer in a child process
//    (CLOCK_MONOTONIC is shared by both processes).
import Documents
import FileCoordination
import Foundation
import Poppler

#if canImport(Glibc)
    import Glibc
#endif

func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func median(_ samples: [UInt64]) -> Double {
    let sorted = samples.sorted()
    return Double(sorted[sorted.count / 2]) / 1_000
}

func format(_ microseconds: Double) -> String { String(format: "%.1f", microseconds) }

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures")
let hundred = try Data(contentsOf: fixtures.appendingPathComponent("hundred-pages.pdf"))
let linearized = try Data(contentsOf: fixtures.appendingPathComponent("linearized.pdf"))  // also 100 pages

let arguments = CommandLine.arguments
if arguments.count > 2, arguments[1] == "writer" {
    // Child: for each line on standard input, write the next content coordinated, then print when it was in place.
    let url = URL(fileURLWithPath: arguments[2])
    var round = 0
    while readLine() != nil {
        round += 1
        var inPlace: UInt64 = 0
        try FileCoordinator().coordinate(writingItemAt: url) { url in
            try (round % 2 == 0 ? hundred : linearized).write(to: url)
            inPlace = monotonicNanoseconds()
        }
        FileHandle.standardOutput.write(Data("\(inPlace)\n".utf8))
    }
    exit(0)
}

// The shared (user) scope, Quire's default: the figures a service sees, and the only scope in which the child's
// write reaches this process through coordination.
var coordination = try CoordinationConfiguration.fromEnvironment()
coordination.scope = .user
try CoordinationService.configure(coordination)
let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 300 : 300
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-document-latency-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let url = directory.appendingPathComponent("hundred-pages.pdf")
try hundred.write(to: url)

/// The file's bytes with plain open/fstat/read/close (the cheapest way; Foundation's `Data(contentsOf:)` is
/// slower and would flatter the ratio).
func readFile(_ path: String) -> Data {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    defer { close(descriptor) }
    var info = stat()
    fstat(descriptor, &info)
    var data = Data(count: Int(info.st_size))
    let count = data.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
    precondition(count == data.count)
    return data
}

// 1. Opening (interleaved, so that both see the same machine).
var poppler: [UInt64] = []
var fromMemory: [UInt64] = []
var document: [UInt64] = []
// The order rotates every round so that each kind takes every place equally often; documents are freed after
// the round, outside the timings.
for index in 0..<(rounds + 21) {
    var times: [UInt64] = [0, 0, 0]
    var kept: [AnyObject] = []  // freed after the round, outside the timings
    for step in 0..<3 {
        let kind = (index + step) % 3
        let start = monotonicNanoseconds()
        let pages: Int
        switch kind {
        case 0:
            let pdf = try PDFDocument(data: readFile(url.path))
            pages = pdf.pageCount
            kept.append(pdf)
        case 1:
            let opened = Document(url: url)
            pages = opened.pageCount
            kept.append(opened)
        default:
            let pdf = try PDFDocument(data: hundred)
            pages = pdf.pageCount
            kept.append(pdf)
        }
        times[kind] = monotonicNanoseconds() - start
        precondition(pages == 100)
    }
    kept.removeAll()
    if index >= 21 {
        poppler.append(times[0])
        document.append(times[1])
        fromMemory.append(times[2])
    }
}
let popplerOpen = median(poppler)
let documentOpen = median(document)
print("open the 100-page fixture, bytes already in memory:  \(format(median(fromMemory))) µs")
print("open it with Poppler alone (read(2) + PDFDocument):  \(format(popplerOpen)) µs")
print(
    "open it as Document(url:) (coordinated read):        \(format(documentOpen)) µs   "
        + "ratio \(String(format: "%.2f", documentOpen / popplerOpen))× (target ≤ 1.5×)"
)

// Where the difference goes.
func medianOf(_ body: () throws -> Void) rethrows -> Double {
    var samples: [UInt64] = []
    for index in 0..<(rounds + 20) {
        let start = monotonicNanoseconds()
        try body()
        if index >= 20 { samples.append(monotonicNanoseconds() - start) }
    }
    return median(samples)
}
let making = medianOf { _ = CoordinatedFileDataProvider(fileURL: url) }
let coordinating = try medianOf { try FileCoordinator().coordinate(readingItemAt: url) { _ in } }
let fingerprinting = medianOf { _ = ContentFingerprint(of: hundred) }
print(
    "  of which: a provider \(format(making)) µs, an empty coordinated read \(format(coordinating)) µs, "
        + "the content fingerprint \(format(fingerprinting)) µs")

// 2. Notifications.
final class Arrivals: @unchecked Sendable {
    private let condition = NSCondition()
    private var times: [UInt64] = []
    func record() {
        condition.withLock {
            times.append(monotonicNanoseconds()); condition.broadcast()
        }
    }
    func next(after count: Int) -> UInt64 {
        condition.withLock {
            while times.count <= count { condition.wait() }
            return times[count]
        }
    }
}
let watched = Document(url: url)
let arrivals = Arrivals()
let token = NotificationCenter.default.addObserver(
    forName: .documentUnderlyingFileChanged, object: watched, queue: nil
) { _ in arrivals.record() }
FilePresenterCoordinator.shared.observe(watched.filePresenters)
try CoordinationService.synchronize()

var sameProcess: [UInt64] = []
var received = 0
for index in 0..<(rounds + 20) {
    var inPlace: UInt64 = 0
    try FileCoordinator().coordinate(writingItemAt: url) { url in
        try (index % 2 == 0 ? linearized : hundred).write(to: url)
        inPlace = monotonicNanoseconds()
    }
    let arrived = arrivals.next(after: received)
    received += 1
    if index >= 20 { sameProcess.append(arrived - inPlace) }
}
print("coordinated write → notification, same process:     \(format(median(sameProcess))) µs   (target ≤ 1000)")

let child = Process()
child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
child.environment = ProcessInfo.processInfo.environment.merging(["QUIRE_COORDINATION_SCOPE": "user"]) { _, new in new }
child.arguments = ["writer", url.path]
let input = Pipe()
let output = Pipe()
child.standardInput = input
child.standardOutput = output
try child.run()
var otherProcess: [UInt64] = []
var pending = Data()
for index in 0..<(rounds + 20) {
    input.fileHandleForWriting.write(Data("\n".utf8))
    while pending.firstIndex(of: UInt8(ascii: "\n")) == nil {
        pending.append(output.fileHandleForReading.availableData)
    }
    let newline = pending.firstIndex(of: UInt8(ascii: "\n"))!
    let inPlace = UInt64(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))!
    pending.removeSubrange(pending.startIndex...newline)
    let arrived = arrivals.next(after: received)
    received += 1
    if index >= 20 { otherProcess.append(arrived - inPlace) }
}
try input.fileHandleForWriting.close()
child.waitUntilExit()
print("coordinated write → notification, other process:    \(format(median(otherProcess))) µs   (target ≤ 2000)")
NotificationCenter.default.removeObserver(token)
FilePresenterCoordinator.shared.unobserve(watched.filePresenters)
