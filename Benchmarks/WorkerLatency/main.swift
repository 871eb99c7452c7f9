// The figures of issue 14, timed call by call; prints medians and ratios.
//   cd Benchmarks && swift run -c release WorkerLatency [rounds]
// 1. An open document (Fixtures/hundred-pages.pdf): its info (page count, every page's size and label, the
//    metadata), a page's text and a 150-dpi render, through the PDF worker processes (the service's engine)
//    against the same calls in-process (poppler in this process, the library's default engine).
// 2. Worker replacement: a worker is killed (SIGKILL); the time until the next request is answered.
import DocumentStore
import Documents
import Foundation

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
    return Double(sorted[sorted.count / 2]) / 1_000_000
}

func time(_ rounds: Int, _ body: (Int) throws -> Void) rethrows -> [UInt64] {
    try (0..<rounds).map { round in
        let start = monotonicNanoseconds()
        try body(round)
        return monotonicNanoseconds() - start
    }
}

let rounds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 40 : 40
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures")
let bytes = try Data(contentsOf: fixtures.appendingPathComponent("hundred-pages.pdf"))
// The release quire-pdf of the main package (compare-store.sh builds it), unless QUIRE_PDF_WORKER says otherwise.
let executable =
    ProcessInfo.processInfo.environment["QUIRE_PDF_WORKER"]
    ?? fixtures.deletingLastPathComponent().appendingPathComponent(".build/release/quire-pdf").path
guard FileManager.default.isExecutableFile(atPath: executable) else {
    print("no quire-pdf at \(executable): run `swift build -c release --product quire-pdf` in the main package")
    exit(1)
}
let workers = PDFWorkerProcesses(executable: executable, workers: 2, deadline: .seconds(30))
defer { workers.shutdown() }

let inProcess = Document(dataProviders: [MemoryDataProvider(data: bytes)])
let inWorkers = Document(dataProviders: [MemoryDataProvider(data: bytes)], engine: workers.engine(queue: "bench"))
guard inProcess.errors.isEmpty, inWorkers.errors.isEmpty else {
    print("the fixture did not open: \(inProcess.errors) \(inWorkers.errors)")
    exit(1)
}

func info(_ document: Document) throws {
    for index in 0..<document.pageCount { _ = try document.pageInfo(at: index) }
    _ = document.metadata
}

let small = try Data(contentsOf: fixtures.appendingPathComponent("one-page.pdf"))
let smallInProcess = Document(dataProviders: [MemoryDataProvider(data: small)])
let smallInWorkers = Document(dataProviders: [MemoryDataProvider(data: small)], engine: workers.engine(queue: "small"))

print("PDF work of an open 100-page document, \(rounds) rounds each, median ms (worker / in-process):")
var ratios: [String: Double] = [:]
for (name, body) in [
    ("info (100 pages)", { (document: Document, _: Int) in try info(document) }),
    ("text of a page", { (document: Document, round: Int) in _ = try document.text(ofPageAt: round % 100) }),
    ("render at 150 dpi", { (document: Document, round: Int) in _ = try document.renderPage(at: round % 100, dpi: 150) }),
    // The fixed cost of a request: the text of a one-page document is almost no work for poppler.
    ("text, 1-page doc", { (document: Document, _: Int) in
        _ = try (document === inWorkers ? smallInWorkers : smallInProcess).text(ofPageAt: 0)
    }),
] as [(String, (Document, Int) throws -> Void)] {
    _ = try time(3) { try body(inWorkers, $0) }  // warm up: workers started
    _ = try time(3) { try body(inProcess, $0) }
    // Interleaved, one call of each per round (in alternating order), so that the machine's noise falls on both.
    var workerSamples: [UInt64] = []
    var localSamples: [UInt64] = []
    for round in 0..<rounds {
        let order = round % 2 == 0 ? [inWorkers, inProcess] : [inProcess, inWorkers]
        for document in order {
            let sample = try time(1) { _ in try body(document, round) }[0]
            if document === inWorkers { workerSamples.append(sample) } else { localSamples.append(sample) }
        }
    }
    let worker = median(workerSamples)
    let local = median(localSamples)
    ratios[name] = worker / local
    print(String(format: "  %-20@ worker %8.3f  in-process %8.3f  ratio %.2f×", name as NSString, worker, local, worker / local))
}

var replacements: [UInt64] = []
for round in 0..<10 {
    _ = try inWorkers.text(ofPageAt: round)
    for pid in workers.processIDs { kill(pid, SIGKILL) }
    // The first request after the kill finds its worker gone (it fails); the one after it starts a new one.
    let start = monotonicNanoseconds()
    var served = false
    while !served {
        served = (try? inWorkers.text(ofPageAt: round)) != nil
    }
    replacements.append(monotonicNanoseconds() - start)
}
print(String(format: "worker replacement after SIGKILL: next request answered in %.1f ms (median of 10)", median(replacements)))
