import Foundation
import Poppler
import Testing

/// Resident-set growth over many open/text/render/close cycles.
///
/// Other suites run in parallel in this process and move its resident set by tens of megabytes, so the cycles
/// run in a child: this same test binary, filtered to `isolatedCycles` and switched on by an environment variable.
@Suite("Memory")
struct MemoryTests {
    static let probeVariable = "QUIRE_MEMORY_PROBE"
    static let isProbe = ProcessInfo.processInfo.environment[probeVariable] == "1"

    /// Resident set size of this process in bytes, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test("2,000 open/text/render/close cycles leave the resident set within 5 MB (in a child process)",
          .enabled(if: !isProbe))
    func cyclesDoNotLeak() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--testing-library", "swift-testing", "--filter", "MemoryTests/isolatedCycles"]
        process.environment = ProcessInfo.processInfo.environment.merging([Self.probeVariable: "1"]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        if finished.wait(timeout: .now() + 180) == .timedOut {
            process.terminate()
            Issue.record("the memory probe did not finish within 180 s")
            return
        }
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("RSS growth over 2,000 cycles:"), "\(text)")
    }

    @Test("memory probe: run only in the child started above", .enabled(if: isProbe))
    func isolatedCycles() throws {
        let data = try Fixture.data("one-page.pdf")
        func cycle() throws {
            let document = try PDFDocument(data: data)
            _ = try document.text(ofPageAt: 0)
            _ = try document.renderPNG(pageAt: 0, dpi: 36)
        }
        for _ in 0..<300 { try cycle() }
        let before = Self.residentBytes()
        for _ in 0..<2_000 { try cycle() }
        let growth = Self.residentBytes() - before
        print("RSS growth over 2,000 cycles: \(growth >> 10) KiB")
        #expect(growth < 5 << 20, "RSS grew by \(growth >> 10) KiB over 2,000 cycles")
    }
}
