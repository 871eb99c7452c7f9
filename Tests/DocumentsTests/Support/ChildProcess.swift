import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A program built next to the test bundle (`quire`, `DocumentProbe`), run as a child process whose output
/// lines the test waits for with a bound. It inherits the test's environment (its coordination directory).
final class ChildProcess: @unchecked Sendable {
    /// The built executable named `name`, found by walking up from the test binary.
    static func executable(_ name: String) -> URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return testBinary.deletingLastPathComponent().appendingPathComponent(name)
    }

    private let process = Process()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var pending = Data()
    private var atEnd = false
    private var exited = false

    /// Starts `name arguments…`; standard output and standard error are both collected.
    init(_ name: String, _ arguments: [String]) throws {
        process.executableURL = Self.executable(name)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["QUIRE_COORDINATION_QUIET"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        // A reader thread with blocking reads, not Foundation's readabilityHandler (a dispatch source on the
        // descriptor, whose end from its own handler crashed a test process in libdispatch's event loop).
        let handle = output.fileHandleForReading
        Thread.detachNewThread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(handle.fileDescriptor, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                self?.received(count > 0 ? Data(buffer[0..<count]) : Data())
                if count <= 0 { return }
            }
        }
        process.terminationHandler = { [weak self] _ in
            guard let self else { return }
            condition.withLock {
                exited = true
                condition.broadcast()
            }
        }
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var pid: Int32 { process.processIdentifier }

    /// Every complete line so far.
    var output: [String] { condition.withLock { lines } }

    /// Waits (at most `seconds`) for a line equal to `text`; true if it came.
    func waitFor(_ text: String, _ seconds: Double = Bound.positive) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        return condition.withLock {
            while !lines.contains(text) {
                if atEnd || !condition.wait(until: deadline) { return lines.contains(text) }
            }
            return true
        }
    }

    /// Waits (at most `seconds`) for the process to exit and its output to end; returns its exit status, or
    /// nil if it is still running.
    func waitForExit(_ seconds: Double = Bound.positive) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        let done = condition.withLock {
            while !(exited && atEnd) {
                if !condition.wait(until: deadline) { return exited && atEnd }
            }
            return true
        }
        return done ? process.terminationStatus : nil
    }

    private func received(_ data: Data) {
        condition.withLock {
            if data.isEmpty { atEnd = true }
            pending.append(data)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
            condition.broadcast()
        }
    }
}
