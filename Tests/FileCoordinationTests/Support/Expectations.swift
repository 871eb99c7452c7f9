import FileCoordination
import Foundation
import Testing

/// Inside an accessor: reports that the accessor was entered, then stays until the test releases it (or the
/// positive bound passes, so that a failed test never leaves a thread behind for long).
struct Gate: Sendable {
    /// Signalled when the accessor is entered.
    let entered = Signal()
    /// Signalled by the test to let the accessor return.
    let release = Signal()

    /// Call this inside the accessor.
    func pass() {
        entered.signal()
        _ = release.wait()
    }
}

/// A coordinated access under test: it calls `inside` from its accessor (and only if it gets access).
typealias Access = @Sendable (_ inside: @escaping @Sendable () -> Void) throws -> Void

/// Expects `second` to wait for `first`: while `first` stays in its accessor, `second` does not enter it; once
/// `first` returns, `second` enters. Both must then succeed.
func expectWaits(
    _ second: @escaping Access, for first: @escaping Access, sourceLocation: SourceLocation = #_sourceLocation
) {
    let firstGate = Gate()
    let secondGate = Gate()
    let firstCall = BackgroundCall { try first { firstGate.pass() } }
    #expect(firstGate.entered.wait(), "the first access never entered its accessor", sourceLocation: sourceLocation)
    let secondCall = BackgroundCall { try second { secondGate.pass() } }
    let enteredEarly = secondGate.entered.wait(Bound.negative)
    #expect(!enteredEarly, "the second access did not wait for the first", sourceLocation: sourceLocation)
    firstGate.release.signal()
    if !enteredEarly {
        #expect(secondGate.entered.wait(), "the second access never entered", sourceLocation: sourceLocation)
    }
    secondGate.release.signal()
    expectSuccess(firstCall, sourceLocation: sourceLocation)
    expectSuccess(secondCall, sourceLocation: sourceLocation)
}

/// Expects `second` to enter its accessor while `first` is still in its own: they do not wait for each other.
func expectOverlap(
    _ second: @escaping Access, with first: @escaping Access, sourceLocation: SourceLocation = #_sourceLocation
) {
    let firstGate = Gate()
    let secondGate = Gate()
    let firstCall = BackgroundCall { try first { firstGate.pass() } }
    #expect(firstGate.entered.wait(), "the first access never entered its accessor", sourceLocation: sourceLocation)
    let secondCall = BackgroundCall { try second { secondGate.pass() } }
    #expect(
        secondGate.entered.wait(), "the second access waited for the first, which was still in its accessor",
        sourceLocation: sourceLocation)
    secondGate.release.signal()
    firstGate.release.signal()
    expectSuccess(firstCall, sourceLocation: sourceLocation)
    expectSuccess(secondCall, sourceLocation: sourceLocation)
}

/// Expects a background call to finish without an error within the positive bound.
func expectSuccess<Value>(_ call: BackgroundCall<Value>, sourceLocation: SourceLocation = #_sourceLocation) {
    switch call.result() {
    case .none:
        Issue.record("the call did not return", sourceLocation: sourceLocation)
    case .failure(let error):
        Issue.record("the call failed: \(error)", sourceLocation: sourceLocation)
    case .success:
        break
    }
}

/// Expects a background call to fail within the positive bound, and returns its error.
func expectFailure<Value>(_ call: BackgroundCall<Value>, sourceLocation: SourceLocation = #_sourceLocation)
    -> (any Error)?
{
    switch call.result() {
    case .none:
        Issue.record("the call did not return", sourceLocation: sourceLocation)
        return nil
    case .failure(let error):
        return error
    case .success:
        Issue.record("the call succeeded but should have failed", sourceLocation: sourceLocation)
        return nil
    }
}

/// The standardized path of a URL, as presenter events report it.
func path(_ url: URL) -> String { url.standardizedFileURL.path }

/// The error `body` throws, or nil (recording an issue) if it does not throw.
func thrownError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> (any Error)? {
    do {
        try body()
        Issue.record("the call did not throw", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// True for ``FileCoordinationError/invalidNesting``.
func isInvalidNesting(_ error: (any Error)?) -> Bool {
    if case .invalidNesting? = error as? FileCoordinationError { true } else { false }
}

/// True for ``FileCoordinationError/notAFileURL(_:)`` naming `url`.
func isNotAFileURL(_ error: (any Error)?, _ url: URL) -> Bool {
    if case .notAFileURL(let reported)? = error as? FileCoordinationError { reported == url } else { false }
}

/// True for ``FileCoordinationError/timedOut(_:)`` naming the item at `url`.
func isTimedOut(_ error: (any Error)?, _ url: URL) -> Bool {
    if case .timedOut(let reported)? = error as? FileCoordinationError { samePath(reported, url) } else { false }
}

/// Records an issue: an accessor ran for a call that should have failed (cancelled, refused or nested).
func accessorMustNotRun(sourceLocation: SourceLocation = #_sourceLocation) {
    Issue.record("the accessor ran for a call that should have failed", sourceLocation: sourceLocation)
}
