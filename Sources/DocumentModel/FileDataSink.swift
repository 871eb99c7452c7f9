import Foundation
import QuireSystem
import Synchronization

/// The sink of a ``FileDataProvider``: a hidden temporary file in the same directory as the provider's file,
/// with the same extension (`.NAME.quire-XXXXXX.pdf`), so that the provider can rename it over its file in one
/// atomic step. The bytes are synced to disk by ``finish()``. A sink that is never used is removed when it is
/// released.
public final class FileDataSink: DataSink, @unchecked Sendable {
    private struct State {
        var descriptor: Int32
        var isFinished = false
        var isConsumed = false
        var failure: DataProviderError?
        var hasher = ContentFingerprint.Hasher64()
        var retained: Data?
    }

    /// The temporary file that collects the bytes.
    public let fileURL: URL
    /// How the sink started.
    public let options: DataSinkOptions
    /// The provider that made the sink (only it accepts the sink).
    weak var owner: FileDataProvider?
    private let state: Mutex<State>

    /// Makes a sink beside `target`; with `retainingBytes` it also keeps the bytes in memory.
    init(beside target: URL, options: DataSinkOptions, owner: FileDataProvider, retainingBytes: Bool)
        throws(DataProviderError)
    {
        let (descriptor, path) = try FileSystemCalls.makeTemporaryFile(
            beside: target, confinement: owner.confinement)
        do {
            try FileSystemCalls.copyPermissions(
                to: descriptor, path: path, from: target.path, confinement: owner.confinement)
        } catch {
            SystemCall.close(descriptor)
            FileSystemCalls.unlinkQuietly(path)
            throw error
        }
        fileURL = URL(fileURLWithPath: path)
        self.options = options
        self.owner = owner
        adopted = nil
        state = Mutex(State(descriptor: descriptor, retained: retainingBytes ? Data() : nil))
    }

    /// Takes a finished file at `file` (on the provider's file system, synced by its writer) as a finished sink:
    /// its bytes are read once, in pieces, for their fingerprint (and kept when `retainingBytes`), and it gets the
    /// permissions of `target`. Putting the sink in place renames the file; a sink never put in place removes it.
    init(adopting file: URL, target: URL, owner: FileDataProvider, retainingBytes: Bool) throws(DataProviderError) {
        let path = file.path
        let descriptor = try FileSystemCalls.openForReading(path)
        defer { SystemCall.close(descriptor) }
        try FileSystemCalls.copyPermissions(
            to: descriptor, path: path, from: target.path, confinement: owner.confinement)
        var hasher = ContentFingerprint.Hasher64()
        var retained: Data? = retainingBytes ? Data() : nil
        try FileSystemCalls.readPieces(descriptor, path: path) { bytes in
            hasher.update(bytes)
            retained?.append(contentsOf: bytes)
        }
        fileURL = file
        options = []
        self.owner = owner
        adopted = retained.map { ($0, hasher.finish()) }
        state = Mutex(State(descriptor: -1, isFinished: true, hasher: hasher, retained: retained))
    }

    /// The bytes of an adopted file and their fingerprint, as read once when the sink was made (nil for a sink
    /// that was written, or that does not keep its bytes): whoever checks the new content before putting it in
    /// place reads and hashes nothing again.
    package let adopted: (bytes: Data, fingerprint: ContentFingerprint)?

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { SystemCall.close(state.descriptor) }
            if !state.isConsumed { FileSystemCalls.unlinkQuietly(fileURL.path) }
        }
    }

    /// True once ``finish()`` was called.
    public var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Why the sink failed, if a write or the finish failed (or bytes came after the finish).
    public var failure: DataProviderError? { state.withLock { $0.failure } }

    /// Appends bytes to the temporary file. Returns false (and records ``failure``) after ``finish()`` or when
    /// the write fails.
    @discardableResult
    public func writeData(_ data: Data) -> Bool {
        state.withLock { state in
            guard !state.isFinished else {
                state.failure = state.failure ?? .sinkFinished
                return false
            }
            guard state.failure == nil else { return false }
            let failure = data.withUnsafeBytes { bytes -> DataProviderError? in
                do throws(DataProviderError) {
                    try FileSystemCalls.writeAll(state.descriptor, bytes, path: fileURL.path)
                } catch {
                    return error
                }
                state.hasher.update(bytes)
                return nil
            }
            if let failure {
                state.failure = failure
                return false
            }
            state.retained?.append(data)
            return true
        }
    }

    /// Syncs the bytes to disk and closes the file. Returns false (and records ``failure``) if that fails or a
    /// write failed before. Calling it again returns the first answer.
    @discardableResult
    public func finish() -> Bool {
        state.withLock { state in
            if state.isFinished { return state.failure == nil }
            state.isFinished = true
            defer {
                SystemCall.close(state.descriptor)
                state.descriptor = -1
            }
            guard state.failure == nil else { return false }
            do throws(DataProviderError) {
                try FileSystemCalls.sync(state.descriptor, path: fileURL.path)
                return true
            } catch {
                state.failure = error
                return false
            }
        }
    }

    /// Checks that `provider` may put this sink in place now, and marks it used.
    /// - Throws: ``DataProviderError/foreignSink``, ``DataProviderError/sinkNotFinished``,
    ///   ``DataProviderError/sinkConsumed`` or ``DataProviderError/sinkFailed(_:)``.
    func consume(for provider: FileDataProvider) throws(DataProviderError) -> Contents {
        guard owner === provider else { throw .foreignSink }
        return try state.withLock { state throws(DataProviderError) -> Contents in
            guard state.isFinished else { throw .sinkNotFinished }
            if let failure = state.failure { throw .sinkFailed(failure.description) }
            guard !state.isConsumed else { throw .sinkConsumed }
            state.isConsumed = true
            return Contents(fingerprint: state.hasher.finish(), bytes: state.retained)
        }
    }

    /// Puts the sink back into play after a failed replace (so it is cleaned up, or can be tried again).
    func release() {
        state.withLock { $0.isConsumed = false }
    }

    /// What the provider learns of the bytes it puts in place.
    struct Contents {
        var fingerprint: ContentFingerprint
        var bytes: Data?
    }
}
