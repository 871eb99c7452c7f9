import Foundation
import Synchronization

/// A provider over bytes in memory. Writable: a sink collects bytes in memory and replacing swaps them in.
public final class MemoryDataProvider: WritableDataProviding, @unchecked Sendable {
    private let bytes: Mutex<Data>
    /// "memory-" and the fingerprint of the bytes the provider was made with (stable across launches).
    public let uid: String

    /// Makes a provider over a copy of `data`.
    public init(data: Data) {
        bytes = Mutex(data)
        uid = "memory-\(ContentFingerprint(of: data))"
    }

    /// The number of bytes.
    public var size: UInt64 { bytes.withLock { UInt64($0.count) } }

    /// All the bytes.
    public func data() throws -> Data { bytes.withLock { $0 } }

    /// At most `size` bytes at `offset`; fewer (or none) at and past the end.
    public func readData(size: Int, atOffset offset: UInt64) throws -> Data {
        bytes.withLock { data in
            guard size > 0, offset < UInt64(data.count) else { return Data() }
            let start = data.startIndex + Int(offset)
            return data.subdata(in: start..<min(data.endIndex, start + size))
        }
    }

    /// A sink in memory; `.append` starts with the current bytes.
    public func createDataSink(options: DataSinkOptions) throws -> any DataSink {
        MemoryDataSink(owner: self, options: options, initial: options.contains(.append) ? try data() : Data())
    }

    /// Takes the sink's bytes.
    /// - Throws: ``DataProviderError/foreignSink``, ``DataProviderError/sinkNotFinished``,
    ///   ``DataProviderError/sinkFailed(_:)``.
    public func replaceContents(with sink: any DataSink) throws {
        guard let sink = sink as? MemoryDataSink, sink.owner === self else { throw DataProviderError.foreignSink }
        let data = try sink.takeBytes()
        bytes.withLock { $0 = data }
    }

    /// Empties the bytes.
    public func deleteData() throws {
        bytes.withLock { $0 = Data() }
    }
}
