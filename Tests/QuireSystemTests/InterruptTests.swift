import Foundation
import QuireSystem
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The calls of the system-call layer that handle `EINTR` in more than one step, and the rule that nothing outside
/// it retries `EINTR` itself.
@Suite("The system-call layer: interruptions, memory files, exact reads")
struct InterruptTests {
    @Test("a sealed memory file holds its bytes, read back exactly, and refuses a write; an unsealed one takes it")
    func memoryFiles() throws {
        let bytes = Array((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let sealed = try bytes.withUnsafeBytes { try SystemCall.memoryFile(name: "test", contents: $0, sealed: true) }
        defer { SystemCall.close(sealed) }
        var back = [UInt8](repeating: 0, count: bytes.count)
        try back.withUnsafeMutableBytes { try SystemCall.readExactly(sealed, into: $0) }
        #expect(back == bytes)
        #expect(write(sealed, "x", 1) == -1 && errno == EPERM)
        let open = try [UInt8]().withUnsafeBytes { try SystemCall.memoryFile(name: "test", contents: $0, sealed: false) }
        defer { SystemCall.close(open) }
        #expect(write(open, "x", 1) == 1)
    }

    @Test("an exact read past the end of the file fails with EIO, naming pread")
    func readPastTheEnd() throws {
        let file = try [UInt8](repeating: 7, count: 10).withUnsafeBytes {
            try SystemCall.memoryFile(name: "short", contents: $0, sealed: true)
        }
        defer { SystemCall.close(file) }
        var buffer = [UInt8](repeating: 0, count: 11)
        #expect(throws: SystemCallError(call: "pread", errno: EIO)) {
            try buffer.withUnsafeMutableBytes { try SystemCall.readExactly(file, into: $0) }
        }
    }

    @Test("a sleep lasts its whole duration however many signals interrupt it; a poll they interrupt returns 0, nothing ready")
    func signalsDuringASleepAndAPoll() throws {
        // A handler that does nothing, installed without SA_RESTART: each signal interrupts the call in progress.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        sigaction(SIGUSR2, &action, &previous)
        defer { sigaction(SIGUSR2, &previous, nil) }

        let outcome = Mutex<(slept: Duration, polled: Int, pollTook: Duration)?>(nil)
        let started = Mutex(false)
        let thread = try SystemThread.start(name: "sleeper", joinable: true) {
            // Threads of the layer block signals; this one takes SIGUSR2, so that it interrupts its calls.
            var mask = sigset_t()
            sigemptyset(&mask)
            sigaddset(&mask, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &mask, nil)
            started.withLock { $0 = true }
            let clock = ContinuousClock()
            let slept = clock.measure { SystemCall.sleep(for: .milliseconds(300)) }
            var descriptors = [pollfd(fd: -1, events: 0, revents: 0)]  // fd -1: never ready; only time or a signal
            var polled = -1
            let pollTook = clock.measure { polled = (try? SystemCall.poll(&descriptors, timeout: 10_000)) ?? -2 }
            outcome.withLock { $0 = (slept, polled, pollTook) }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !started.withLock({ $0 }) && ContinuousClock.now < deadline { usleep(1000) }
        // Signals through the sleep, then one for the poll (bounded: the thread ends on its own after 10 s).
        while outcome.withLock({ $0 == nil }) && ContinuousClock.now < deadline {
            pthread_kill(thread, SIGUSR2)
            usleep(20_000)
        }
        SystemThread.join(thread)
        let result = try #require(outcome.withLock { $0 })
        #expect(result.slept >= .milliseconds(300))
        #expect(result.polled == 0)
        #expect(result.pollTook < .seconds(5))
    }

    @Test("nothing outside QuireSystem retries EINTR itself (Swift and C sources; comments aside)")
    func oneInterruptLoop() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var offenders: [String] = []
        for case let url as URL in files where ["swift", "c", "h"].contains(url.pathExtension) {
            guard !url.path.contains("/Sources/QuireSystem/") else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") || code.hasPrefix("*") || code.hasPrefix("/*") { continue }
                if code.contains("EINTR") { offenders.append("\(url.lastPathComponent):\(number + 1): \(code)") }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }
}
