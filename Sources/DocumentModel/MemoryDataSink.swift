import Foundation
import Synchronization

/// The sink of a ``MemoryDataProvider``.
public final class MemoryDataSink: DataSink, @unchecked Sendable {
    private struct State {
        var bytes: Data
        var isFinished = false
        var failure: DataProviderError?
    }

    weak var owner: MemoryDataProvider?
    /// How the sink started.
    public let options: DataSinkOptions
    private let state: Mutex<State>

    init(owner: MemoryDataProvider, options: DataSinkOptions, initial: Data) {
        self.owner = owner
        self.options = options
        state = Mutex(State(bytes: initial))
    }

    /// True once ``finish()`` was called.
    public var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Why the sink failed (bytes written after ``finish()``), if it did.
    public var failure: DataProviderError? { state.withLock { $0.failure } }

    /// Appends bytes; false (and ``failure`` set) after ``finish()``.
    @discardableResult
    public func writeData(_ data: Data) -> Bool {
        state.withLock { state in
            guard !state.isFinished else {
                state.failure = .sinkFinished
                return false
            }
            state.bytes.append(data)
            return true
        }
    }

    /// Ends writing; false if bytes were written after an earlier finish.
    @discardableResult
    public func finish() -> Bool {
        state.withLock { state in
            state.isFinished = true
            return state.failure == nil
        }
    }

    func takeBytes() throws(DataProviderError) -> Data {
        try state.withLock { state throws(DataProviderError) -> Data in
            guard state.isFinished else { throw .sinkNotFinished }
            if let failure = state.failure { throw .sinkFailed(failure.description) }
            return state.bytes
        }
    }
}
