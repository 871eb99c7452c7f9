import QuireSystem

/// A failed system call: which call, on which path, and the `errno` it set: the package's one system-call
/// error (`QuireSystem`'s), under the name this module has always thrown.
public typealias SystemCallError = QuireSystem.SystemCallError

/// A system call that was making an output failed (a temporary file, a rename's destination): a missing
/// directory then means that the output cannot be created, rather than that an input is missing.
public struct OutputCreationError: Error, Sendable, CustomStringConvertible {
    /// The call that failed.
    public let failure: SystemCallError

    /// Wraps `failure`.
    public init(_ failure: SystemCallError) { self.failure = failure }

    /// As the failure's: "PATH: reason (call)".
    public var description: String { failure.description }
}

/// Runs `body`, whose system calls make an output; their ``SystemCallError`` becomes an ``OutputCreationError``.
@discardableResult
func creatingOutput<T>(_ body: () throws(SystemCallError) -> T) throws(OutputCreationError) -> T {
    do {
        return try body()
    } catch {
        throw OutputCreationError(error)
    }
}
