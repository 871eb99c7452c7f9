import Dispatch
import FileCoordination
import Foundation

/// The bounds every wait in this suite uses, so that a regression fails instead of hanging.
enum Bound {
    /// How long a test waits for something that must happen (generous: the suite shares two cores).
    static let positive: Double = 10
    /// How long a test waits to show that something does not happen (a negative check).
    static let negative: Double = 0.1
    /// The timeout every coordinator of the suite gets, so that a wedged arbiter fails the call.
    static let coordinatorTimeout: Duration = .seconds(20)
}

/// A one-way signal between threads, waited on with a bound.
final class Signal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    /// Lets one current or future `wait` through.
    func signal() { semaphore.signal() }

    /// True if the signal came within `seconds`; consumes it.
    func wait(_ seconds: Double = Bound.positive) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }
}

/// A call running on a thread of its own, whose result the test collects within a bound.
final class BackgroundCall<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: Result<Value, any Error>?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            let result = Result { try body() }
            lock.withLock { outcome = result }
            done.signal()
        }
        thread.start()
    }

    /// The call's result if it finished within `seconds`, else nil.
    func result(within seconds: Double = Bound.positive) -> Result<Value, any Error>? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        done.signal()
        return lock.withLock { outcome }
    }

    /// True if the call has not finished within `seconds` (a negative check).
    func isStillRunning(after seconds: Double = Bound.negative) -> Bool {
        result(within: seconds) == nil
    }
}

/// A value shared between threads.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&stored) }
    }
}

/// A coordinator whose waits are bounded by ``Bound/coordinatorTimeout``.
func makeCoordinator(filePresenter: (any FilePresenter)? = nil) -> FileCoordinator {
    let coordinator = FileCoordinator(filePresenter: filePresenter)
    coordinator.timeout = Bound.coordinatorTimeout
    return coordinator
}

/// An error a test presenter hands to a completion handler.
struct PresenterRefusal: Error, Equatable {
    let reason: String
}

/// True if `error` is Apple's cancellation error: NSCocoaErrorDomain, NSUserCancelledError (3072).
func isUserCancelled(_ error: (any Error)?) -> Bool {
    guard let error else { return false }
    let bridged = error as NSError
    return (error as? CocoaError)?.code == .userCancelled && bridged.domain == NSCocoaErrorDomain
        && bridged.code == 3072
}
