import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A PDF worker's sandbox stops what poppler never needs: real `quire-pdf worker --misbehave ACT` processes
/// (a debug-build option) enter the sandbox as a serving worker does, then try the act.
@Suite("PDF worker sandbox")
struct WorkerSandboxTests {
    /// How a misbehaving worker ended.
    struct Outcome {
        /// `.uncaughtSignal` when a signal ended it.
        let reason: Process.TerminationReason
        /// The exit status, or the signal's number.
        let status: Int32
        /// What it wrote on standard output.
        let output: Data
        /// What it wrote on standard error.
        let errors: String
    }

    /// The `quire-pdf` next to the `quire` the other command-line tests run.
    static let executable = QuireProcess.executable.deletingLastPathComponent().appendingPathComponent("quire-pdf")

    /// Runs `quire-pdf worker --misbehave act`; kills it and throws when it has not ended within 30 s.
    static func misbehave(_ act: String) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["worker", "--misbehave", act]
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        if done.wait(timeout: .now() + 30) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            _ = done.wait(timeout: .now() + 5)
            throw QuireProcess.TimedOut(arguments: process.arguments ?? [])
        }
        // The process has ended, so both pipes are at their end.
        return Outcome(
            reason: process.terminationReason, status: process.terminationStatus,
            output: output.fileHandleForReading.readDataToEndOfFile(),
            errors: String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    @Test(
        "Making a socket, connecting, exec, fork, opening for writing and taking SIGSYS from the open broker kill the worker with SIGSYS",
        arguments: ["socket", "connect", "exec", "fork", "open-write", "take-sigsys"])
    func forbiddenActsAreKilled(act: String) throws {
        let outcome = try Self.misbehave(act)
        #expect(outcome.reason == .uncaughtSignal, "\(act): \(outcome)")
        #expect(outcome.status == SIGSYS, "\(act): \(outcome)")
    }

    @Test(
        "Opening /etc/passwd for reading, directly or through a font directory's '..', kills the worker with SIGSYS, and none of its bytes come out",
        arguments: ["open-passwd", "open-passwd-dotdot"])
    func passwdKillsTheWorker(act: String) throws {
        let outcome = try Self.misbehave(act)
        #expect(outcome.reason == .uncaughtSignal, "\(act): \(outcome)")
        #expect(outcome.status == SIGSYS, "\(act): \(outcome)")
        #expect(outcome.output.isEmpty, "\(act): \(outcome)")
        #expect(outcome.errors.contains("outside the readable directories"), "\(act): \(outcome)")
    }

    @Test("Opening a font directory for reading is let through (the control: the broker allows what poppler needs)")
    func fontsAreReadable() throws {
        let outcome = try Self.misbehave("open-fonts")
        #expect(outcome.reason == .exit, "\(outcome)")
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.errors.isEmpty, "\(outcome)")
    }

    @Test("A thread is allowed inside the sandbox (the control: healthy work is not killed)")
    func threadsAreAllowed() throws {
        let outcome = try Self.misbehave("thread")
        #expect(outcome.reason == .exit, "\(outcome)")
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.errors.isEmpty, "\(outcome)")
    }
}
