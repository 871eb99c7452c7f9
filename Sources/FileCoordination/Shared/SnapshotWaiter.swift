import Dispatch
import Synchronization

/// A thread waiting for a snapshot answer.
final class SnapshotWaiter: Sendable {
    private let result = Mutex<ArbiterSession.SnapshotAnswer?>(nil)
    private let semaphore = DispatchSemaphore(value: 0)

    /// Hands over the answer.
    func resolve(_ answer: ArbiterSession.SnapshotAnswer) {
        result.withLock { $0 = answer }
        semaphore.signal()
    }

    /// The answer, or nil if none came within `seconds`.
    func wait(seconds: Int) -> ArbiterSession.SnapshotAnswer? {
        guard semaphore.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
        return result.withLock { $0 }
    }
}
