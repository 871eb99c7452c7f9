// package-benchmark suite for the Poppler library (opening, text, rendering, memory growth).
//
// Run from the repository root with `make bench`, or:
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark
// One benchmark only:   ... benchmark --filter "Text.*"
// Fixtures are read from ../Fixtures next to this package (or from $QUIRE_FIXTURES).

import Benchmark
import Poppler

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: Fixtures

/// The repository's Fixtures folder: $QUIRE_FIXTURES, else found from this file's path (Benchmarks/PopplerBenchmarks/).
private let fixturesDirectory: String = {
    if let override = getenv("QUIRE_FIXTURES") { return String(cString: override) }
    let thisFile = URL(fileURLWithPath: #filePath)
    return thisFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path
}()

private func fixture(_ name: String) -> Data {
    let path = fixturesDirectory + "/" + name
    guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else {
        fatalError("PopplerBenchmarks: cannot read fixture \(path) (set QUIRE_FIXTURES to the Fixtures folder)")
    }
    return data
}

private func open(_ data: Data) -> PDFDocument {
    do {
        return try PDFDocument(data: data)
    } catch {
        fatalError("PopplerBenchmarks: cannot open fixture: \(error)")
    }
}

// MARK: Resident memory

/// Resident set size of this process in KB, from the second field of /proc/self/statm (pages).
private func residentKilobytes() -> Int {
    #if os(Linux)
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return -1 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    #else
    return -1
    #endif
}

/// One open/text/render/close cycle on a one-page document (the document is closed when it goes out of scope).
@inline(never)
private func openTextRenderClose(_ data: Data) throws(PDFError) -> Int {
    let document = try PDFDocument(data: data)
    let text = try document.text(ofPageAt: 0)
    let png = try document.renderPNG(pageAt: 0, dpi: 72)
    return text.utf8.count + png.count + document.pageCount
}

/// Custom metric: RSS growth over the measured cycles, in KB (reported once per run, not scaled). package-benchmark
/// drops negative samples, so a shrink is recorded as 0; the exact signed figure is printed on stderr.
private let rssGrowth = BenchmarkMetric.custom("RSS growth (KB)", polarity: .prefersSmaller, useScalingFactor: false)
/// Custom metric: RSS after the warm-up, in KB, for scale.
private let rssBaseline = BenchmarkMetric.custom("RSS after warm-up (KB)", polarity: .prefersSmaller, useScalingFactor: false)

// MARK: Benchmarks

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // No .instructions (needs perf events) and no .cpuTotal by default (10 ms resolution here).
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 3,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )

    let onePage = fixture("one-page.pdf")
    let hundredPages = fixture("hundred-pages.pdf")

    // Opening from memory (PDFDocument(data:) = g_bytes copy + poppler_document_new_from_stream + page count).
    Benchmark("Open one-page.pdf from memory") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(open(onePage))
        }
    }

    Benchmark("Open hundred-pages.pdf from memory") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(open(hundredPages))
        }
    }

    // pageCount is read once at open and stored: on an open document it costs a property read.
    // "Open + pageCount" is what a caller pays to learn it from bytes.
    let hundred = open(hundredPages)
    Benchmark(
        "pageCount of an open hundred-pages.pdf",
        configuration: .init(timeUnits: .nanoseconds, scalingFactor: .kilo)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(hundred.pageCount)
        }
    }

    Benchmark("Open + pageCount of hundred-pages.pdf") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(open(hundredPages).pageCount)
        }
    }

    // Text.
    Benchmark("Text of one page (hundred-pages.pdf page 1, open document)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? hundred.text(ofPageAt: 0))
        }
    }

    for workers in [1, 2] {
        Benchmark(
            "Text of all 100 pages (PDFTextExtractor, \(workers) worker\(workers == 1 ? "" : "s"))",
            // CPU time next to wall time shows whether the two workers overlap.
            configuration: .init(metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident, .throughput])
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                let texts = try? PDFTextExtractor.text(of: hundredPages, workers: workers)
                precondition(texts?.count == 100)
                blackHole(texts)
            }
        }
    }

    // Rendering page 1 to PNG in memory (cairo RGB24 + libpng level 1, the CLI's default).
    for dpi in [72.0, 150.0] {
        Benchmark("Render page 1 to PNG at \(Int(dpi)) dpi (hundred-pages.pdf, open document)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try? hundred.renderPNG(pageAt: 0, dpi: dpi))
            }
        }
    }

    // Memory: 2,000 open/text/render(72 dpi)/close cycles on one-page.pdf after 200 warm-up cycles.
    // Reports the RSS growth over the 2,000 cycles (KB) as a custom metric and prints it on stderr.
    Benchmark(
        "Memory: 2,000 open/text/render/close cycles (one-page.pdf)",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, rssGrowth, rssBaseline],
            timeUnits: .milliseconds,
            units: [rssGrowth: .count, rssBaseline: .count],
            warmupIterations: 0,
            maxDuration: .seconds(600),
            maxIterations: 1
        )
    ) { benchmark in
        let cycles = 2_000
        var sink = 0
        for _ in 0..<200 { sink &+= (try? openTextRenderClose(onePage)) ?? 0 }
        let before = residentKilobytes()
        benchmark.startMeasurement()
        for _ in 0..<cycles { sink &+= (try? openTextRenderClose(onePage)) ?? 0 }
        benchmark.stopMeasurement()
        let after = residentKilobytes()
        blackHole(sink)
        benchmark.measurement(rssBaseline, before)
        benchmark.measurement(rssGrowth, max(0, after - before))
        let line = "PopplerBenchmarks: RSS after warm-up \(before) KB, after \(cycles) cycles \(after) KB, growth \(after - before) KB\n"
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
