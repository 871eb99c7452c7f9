#if DEBUG  // @testable needs a debug build (or -enable-testing)
import Foundation
import Synchronization
import Testing

@testable import FileCoordination

/// Collects what a watcher reports, with the instant each batch arrived, and waits for it with a deadline.
final class ChangeRecorder: Sendable {
    /// What arrived so far.
    private struct Log {
        var changes: [(change: WatchedChange, at: ContinuousClock.Instant)] = []
        var batches = 0
        var warnings: [String] = []
    }

    private let log = Mutex(Log())
    /// Signalled on every batch and warning: waits block on it instead of sleeping on the cooperative pool,
    /// which synchronous suites running in parallel can starve for seconds.
    private let arrived = DispatchSemaphore(value: 0)

    /// The `onEvent` callback.
    func record(_ batch: [WatchedChange]) {
        let now = ContinuousClock.now
        log.withLock { log in
            log.batches += 1
            log.changes += batch.map { ($0, now) }
        }
        arrived.signal()
    }

    /// The `onWarning` callback.
    func warn(_ warning: String) {
        log.withLock { $0.warnings.append(warning) }
        arrived.signal()
    }

    /// Every change so far.
    var changes: [WatchedChange] { log.withLock { $0.changes.map(\.change) } }
    /// Every change so far with its arrival instant.
    var timedChanges: [(change: WatchedChange, at: ContinuousClock.Instant)] { log.withLock { $0.changes } }
    /// Every warning so far.
    var warnings: [String] { log.withLock { $0.warnings } }

    /// Waits until `condition` holds for the changes (true) or `timeout` passes (false).
    func wait(
        timeout: Duration = .seconds(5), until condition: @Sendable ([WatchedChange], [String]) -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (changes, warnings) = log.withLock { ($0.changes.map(\.change), $0.warnings) }
            if condition(changes, warnings) { return true }
            _ = arrived.wait(timeout: .now() + .milliseconds(5))
        }
        return false
    }

    /// Waits until at least `count` changes arrived.
    func wait(forCount count: Int, timeout: Duration = .seconds(5)) async -> Bool {
        await wait(timeout: timeout) { changes, _ in changes.count >= count }
    }
}

/// A fresh directory under the system's temporary directory, removed when released.
final class TemporaryDirectory: Sendable {
    /// Its absolute path (no symbolic links).
    let path: String

    init() {
        var template = Array("/tmp/watching-test-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        path = String(cString: template.map { UInt8(bitPattern: $0) })
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    /// Makes a subdirectory and returns its path.
    func directory(_ name: String) -> String {
        let subdirectory = file(name)
        mkdir(subdirectory, 0o755)
        return subdirectory
    }
}

/// Appends `text` to `path` with open(O_APPEND|O_CREAT) + write + close, like `echo text >> path`.
func appendText(_ text: String, to path: String) {
    let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
    precondition(descriptor >= 0, "open \(path) failed")
    _ = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
    close(descriptor)
}

/// Waits for a child process with a deadline; kills it if the deadline passes.
func runChild(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(5)) async throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    try process.run()
    let deadline = ContinuousClock.now + timeout
    while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
    if process.isRunning {
        process.terminate()
        return -1
    }
    return process.terminationStatus
}

/// One inotify record as the kernel lays it out: the name NUL-padded to a multiple of 16 bytes.
func inotifyRecord(
    watch: Int32, mask: InotifyEventMask, cookie: UInt32 = 0, name: String = "", padTo: Int? = nil,
    declaredLength: UInt32? = nil
) -> [UInt8] {
    var bytes: [UInt8] = []
    func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    let nameBytes = Array(name.utf8)
    let padded = padTo ?? (name.isEmpty ? 0 : (nameBytes.count + 1 + 15) / 16 * 16)
    put(watch)
    put(mask.rawValue)
    put(cookie)
    put(declaredLength ?? UInt32(padded))
    bytes += nameBytes + [UInt8](repeating: 0, count: padded - nameBytes.count)
    return bytes
}

/// A watcher reporting into `recorder`.
func makeWatcher(
    _ recorder: ChangeRecorder, debounce: Duration = .milliseconds(20), pollInterval: Duration = .seconds(1),
    system: InotifySystem = .live
) -> InotifyWatcher {
    InotifyWatcher(
        debounce: debounce, pollInterval: pollInterval, system: system,
        onWarning: { recorder.warn($0) }, onEvent: { recorder.record($0) })
}

/// The number of watches listed for `descriptor` in `/proc/self/fdinfo`.
func kernelWatchCount(_ descriptor: Int32) throws -> Int {
    let info = try String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)
    return info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
}
#endif
