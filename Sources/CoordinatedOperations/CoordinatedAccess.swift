import FileCoordination
import Foundation
import QuireSystem
import Synchronization

/// Holds coordinated access to several files at once while a body runs: what `quire exec` does around a command.
public enum CoordinatedAccess {
    /// Waits for coordinated read (or write) access to every path in one request, runs `body` while holding
    /// it, then ends the access. One path is coordinated on the calling thread; several go through one
    /// `FileAccessIntent` list, and `body` runs on a private serial queue while the caller waits.
    /// - Parameter timeout: the longest wait for access (nil: wait as long as it takes).
    /// - Throws: `FileCoordinationError` (`.timedOut` after `timeout`), a presenter's error, or `body`'s.
    public static func withAccess<T: Sendable>(
        to paths: [String], writing: Bool, timeout: Duration?, _ body: @escaping @Sendable () throws -> T
    ) throws -> T {
        let coordinator = FileCoordinator()
        coordinator.timeout = timeout
        // Absolute before `URL` sees them: its branch for a relative path appends through a generic
        // `String.append(contentsOf:)`, which the runtime resolves by scanning the binary's conformance table
        // (0.1 ms of `quire exec`'s start).
        let urls = paths.map { URL(fileURLWithPath: SystemCall.absolutePath($0)) }
        if urls.count == 1 {
            if writing {
                return try coordinator.coordinate(writingItemAt: urls[0]) { _ in try body() }
            }
            return try coordinator.coordinate(readingItemAt: urls[0]) { _ in try body() }
        }
        let intents = urls.map {
            writing ? FileAccessIntent.writingIntent(with: $0) : FileAccessIntent.readingIntent(with: $0)
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        coordinator.coordinate(with: intents, queue: queue) { error in
            let result: Result<T, any Error> = if let error { .failure(error) } else { Result { try body() } }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}
