import Foundation

/// Runs the built `quire` binary as a child process, with a bounded wait.
struct QuireProcess {
    struct Result {
        let status: Int32
        let standardOutput: Data
        let standardError: String

        var output: String { String(decoding: standardOutput, as: UTF8.self) }
        var errorLines: [Substring] { standardError.split(separator: "\n", omittingEmptySubsequences: false).dropLast() }
    }

    /// The `quire` executable next to the test bundle in the build folder.
    static let executable: URL = {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("quire")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return testBinary.deletingLastPathComponent().appendingPathComponent("quire")
    }()

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// A process for `quire arguments…` with `extra` added to this process's environment (and 100 columns).
    static func makeProcess(_ arguments: [String], environment extra: [String: String]) -> Process {
        let process = Process()
        if let files = extra["QUIRE_TEST_SOFT_FILE_LIMIT"] {
            // The child starts with this soft limit of open files (its hard limit stays), as under a default
            // `ulimit -n` of 1024.
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "ulimit -Sn \(files) && exec \"$0\" \"$@\"", executable.path] + arguments
        } else if extra["QUIRE_TEST_JOURNAL_STREAM"] != nil {
            // The child's JOURNAL_STREAM names its standard error's device and inode, as systemd sets it for a
            // service whose standard error is the journal.
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments =
                ["-c", "export JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) && exec \"$0\" \"$@\"", executable.path]
                + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "100"
        environment.merge(extra) { $1 }
        process.environment = environment
        return process
    }

    /// Makes writes to the standard input of a child that exited fail with EPIPE instead of killing the tests.
    static let ignoringBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Runs `quire arguments…` with `input` on standard input (empty by default) and `environment` added to
    /// this process's, in `directory` (this process's by default); kills it and fails the result after `timeout`
    /// seconds.
    static func run(
        _ arguments: [String], environment extra: [String: String] = [:], input: Data? = nil,
        timeout: TimeInterval = 60, directory: URL? = nil
    ) throws -> Result {
        let process = makeProcess(arguments, environment: extra)
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        QuireProcess.ignoringBrokenPipes
        let inputPipe = input.map { _ in Pipe() }
        if let inputPipe { process.standardInput = inputPipe }
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        if let inputPipe, let input {
            DispatchQueue.global().async {
                try? inputPipe.fileHandleForWriting.write(contentsOf: input)
                try? inputPipe.fileHandleForWriting.close()
            }
        }
        // Drain both pipes while the child runs so a large output cannot block it.
        let outputData = LockedData()
        let errorData = LockedData()
        let readers = DispatchGroup()
        for (pipe, sink) in [(output, outputData), (error, errorData)] {
            readers.enter()
            DispatchQueue.global().async {
                sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
                readers.leave()
            }
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            _ = done.wait(timeout: .now() + 5)
            throw TimedOut(arguments: arguments)
        }
        _ = readers.wait(timeout: .now() + 10)
        return Result(
            status: process.terminationStatus, standardOutput: outputData.get(),
            standardError: String(decoding: errorData.get(), as: UTF8.self))
    }

    struct TimedOut: Error, CustomStringConvertible {
        let arguments: [String]
        var description: String { "quire \(arguments.joined(separator: " ")) did not finish in time" }
    }

    final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        func set(_ value: Data) { lock.withLock { data = value } }
        func get() -> Data { lock.withLock { data } }
    }
}
