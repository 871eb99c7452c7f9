import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A `quire` started in the background (a holder, a watcher, a coordinator) whose output lines a test waits
/// for, with bounded waits only.
final class RunningQuire: @unchecked Sendable {
    private let process: Process
    private let input = Pipe()
    private let condition = NSCondition()
    private var output = Data()
    private var error = Data()
    private var exited = false
    /// Pipes not yet at end of file: the process's output is complete only when both are.
    private var openPipes = 2
    /// The process exited and everything it wrote has been read.
    private var finished: Bool { exited && openPipes == 0 }

    /// Starts `quire arguments…` with `environment` added; standard input stays open until ``closeInput()``.
    init(_ arguments: [String], environment extra: [String: String]) throws {
        QuireProcess.ignoringBrokenPipes
        process = QuireProcess.makeProcess(arguments, environment: extra)
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardInput = input
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        // A reader thread per pipe, with blocking reads: Foundation's readabilityHandler is a dispatch source on
        // the descriptor, and ending it from its own handler while the handle closes crashed the test process in
        // libdispatch's event loop (seen once in a full run).
        for (pipe, isOutput) in [(outputPipe, true), (errorPipe, false)] {
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread { [weak self] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = read(handle.fileDescriptor, &buffer, buffer.count)
                    if count < 0, errno == EINTR { continue }
                    let data = count > 0 ? Data(buffer[0..<count]) : Data()
                    if let self {
                        self.condition.withLock {
                            if data.isEmpty { self.openPipes -= 1 }
                            if isOutput { self.output.append(data) } else { self.error.append(data) }
                            self.condition.broadcast()
                        }
                    }
                    if count <= 0 { return }
                }
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
        if process.isRunning { process.terminate() }
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }

    /// Standard output so far.
    var standardOutput: String { condition.withLock { String(decoding: output, as: UTF8.self) } }

    /// Standard error so far.
    var standardError: String { condition.withLock { String(decoding: error, as: UTF8.self) } }

    /// Waits until standard output (or standard error) contains `text`; false after `timeout` seconds or if the
    /// process ended without printing it.
    func waitFor(_ text: String, inStandardError: Bool = false, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return condition.withLock {
            while true {
                let data = inStandardError ? error : output
                if String(decoding: data, as: UTF8.self).contains(text) { return true }
                if finished || !condition.wait(until: deadline) { return false }
            }
        }
    }

    /// Waits until standard output holds at least `count` lines.
    func waitForLines(_ count: Int, timeout: TimeInterval = 20) -> [String] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return condition.withLock {
            while true {
                let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
                if lines.count >= count || finished || !condition.wait(until: deadline) { return lines }
            }
        }
    }

    /// Closes standard input (a holder running `read` then lets go).
    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Sends SIGTERM.
    func terminate() {
        process.terminate()
    }

    /// Kills the process if it still runs (continued first, should it be stopped) and waits for it, at most 10 s.
    func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGCONT)
        Glibc.kill(process.processIdentifier, SIGKILL)
        _ = waitForExit(timeout: 10)
    }

    /// Waits for the exit status and the end of its output; nil after `timeout` seconds.
    func waitForExit(timeout: TimeInterval = 20) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        let done = condition.withLock {
            while !finished { if !condition.wait(until: deadline) { return false } }
            return true
        }
        return done ? process.terminationStatus : nil
    }
}
