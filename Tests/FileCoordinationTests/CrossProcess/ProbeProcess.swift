import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A running `CoordinationProbe` (built next to the test bundle): its output lines, collected as they come,
/// its standard input, and bounded waits for both.
final class ProbeProcess: @unchecked Sendable {
    /// The probe executable in the build folder.
    static let executable: URL = {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("CoordinationProbe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return testBinary.deletingLastPathComponent().appendingPathComponent("CoordinationProbe")
    }()

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var ended = false
    private let exited = DispatchSemaphore(value: 0)
    /// What the probe was asked to do, for messages.
    let label: String

    /// Starts `CoordinationProbe arguments…` with the arbiter directory of `arbiter` and the `extra` variables.
    init(_ arguments: [String], arbiter: ArbiterDirectory, environment extra: [String: String] = [:]) throws {
        label = arguments.joined(separator: " ")
        process.executableURL = Self.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["QUIRE_COORDINATION_DIR"] = arbiter.path
        environment["QUIRE_COORDINATION_SCOPE"] = "user"
        environment["QUIRE_COORDINATION_QUIET"] = "1"
        // Directories named *.qpkg are file packages for every probe.
        environment["QUIRE_PACKAGE_EXTENSIONS"] = "qpkg"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
        let handle = output.fileHandleForReading
        let thread = Thread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    condition.withLock {
                        lines.append(line)
                        condition.broadcast()
                    }
                }
            }
            condition.withLock {
                ended = true
                condition.broadcast()
            }
        }
        thread.start()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// The probe's pid.
    var pid: Int32 { process.processIdentifier }

    /// Every line printed so far.
    var printed: [String] { condition.withLock { lines } }

    /// Waits (at most `seconds`) until a printed line satisfies `predicate`; true if one did.
    @discardableResult
    func waitForLine(_ seconds: Double = 15, where predicate: (String) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        return condition.withLock {
            while !lines.contains(where: predicate) {
                if ended || !condition.wait(until: deadline) { return lines.contains(where: predicate) }
            }
            return true
        }
    }

    /// Waits (at most `seconds`) for the line `text`; true if it came.
    @discardableResult
    func waitFor(_ text: String, _ seconds: Double = 15) -> Bool {
        waitForLine(seconds) { $0 == text }
    }

    /// Waits (at most `seconds`) until `text` was printed at least `count` times; true if it was.
    @discardableResult
    func waitFor(_ text: String, count: Int, _ seconds: Double = 15) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        return condition.withLock {
            while lines.filter({ $0 == text }).count < count {
                if ended || !condition.wait(until: deadline) { return lines.filter({ $0 == text }).count >= count }
            }
            return true
        }
    }

    /// Writes a line to the probe's standard input.
    func send(_ line: String = "") {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Closes the probe's standard input.
    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Sends `signal` to the probe.
    func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits (at most `seconds`) for the probe to exit and its output to end; its status, or nil if it did not
    /// exit (it is then killed).
    func exitStatus(within seconds: Double = 30) -> Int32? {
        if exited.wait(timeout: .now() + seconds) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            _ = exited.wait(timeout: .now() + 5)
            return nil
        }
        exited.signal()
        // Everything it printed is read once its output reaches end of file.
        let deadline = Date(timeIntervalSinceNow: 10)
        condition.withLock {
            while !ended { if !condition.wait(until: deadline) { break } }
        }
        return process.terminationStatus
    }
}

/// A private arbiter directory for one test (mode 0700), so that its probes share an arbiter with nobody else.
struct ArbiterDirectory {
    /// Its path (the directory itself is created by the first probe that needs it).
    let path: String
    /// The folder that holds it, removed by ``remove()``.
    let parent: URL

    /// Makes a new private folder.
    init() throws {
        parent = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("quire-arbiter-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        path = parent.appendingPathComponent("coordination").path
    }

    /// Removes the folder.
    func remove() {
        try? FileManager.default.removeItem(at: parent)
    }
}

/// Writers of one counter file, each a `probe storm` that checks with an exclusion marker that nobody else is
/// inside, and what each one reports when done.
struct ProbeStorm {
    let counter: URL
    let marker: URL
    let perProcess: Int
    let writers: [ProbeProcess]

    /// Starts one writer of `perProcess` writes for each of `environments` (its extra environment), on a new
    /// counter file in `tree`.
    init(in tree: TemporaryTree, arbiter: ArbiterDirectory, perProcess: Int, environments: [[String: String]]) throws {
        counter = try tree.file("counter.txt", contents: "0\n")
        marker = tree.url("writer-inside")
        self.perProcess = perProcess
        let arguments = ["storm", counter.path, "--count", "\(perProcess)", "--marker", marker.path]
        writers = try environments.map { try ProbeProcess(arguments, arbiter: arbiter, environment: $0) }
    }

    /// Waits for every writer and checks that each did all its writes, that the counter lost none and that no
    /// writer is left inside; returns what each reported of the hand-over board, `[received, passedOn]`
    /// (`[-1, -1]` for one whose last line is not the report).
    func finish() throws -> [[Int]] {
        var counts: [[Int]] = []
        for writer in writers {
            #expect(writer.exitStatus(within: 120) == 0, "\(writer.label): \(writer.printed.suffix(3))")
            // "done 300 received R passed-on P"
            let words = writer.printed.last?.split(separator: " ") ?? []
            #expect(words.count == 6 && words[0] == "done" && words[1] == "\(perProcess)", "\(words)")
            counts.append(words.count == 6 ? [Int(words[3]) ?? -1, Int(words[5]) ?? -1] : [-1, -1])
        }
        let total = try String(contentsOf: counter, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(total == "\(writers.count * perProcess)")
        #expect(!FileManager.default.fileExists(atPath: marker.path))
        return counts
    }
}
