import CoordinationArbiter

/// The first pass of ``WireEncoder``: adds up a frame's size and checks every value the protocol cannot carry.
struct WireSizeCounter: WireSink {
    /// The bytes counted so far.
    private(set) var size = 0
    /// The frame being counted, named in errors.
    let frameType: WireFrameType

    /// Makes a counter for a frame of type `frameType`.
    init(frameType: WireFrameType) { self.frameType = frameType }

    /// Counts an integer.
    mutating func write<Integer: FixedWidthInteger>(_ value: Integer) { size += MemoryLayout<Integer>.size }

    /// Counts an array count; more elements than a frame has bytes cannot be sent.
    mutating func writeCount(_ count: Int) throws(WireError) {
        guard count <= WireProtocol.maximumFrameLength else { throw .frameTooLarge(length: count) }
        size += 4
    }

    /// Counts a string; one longer than a frame cannot be sent.
    mutating func writeString(_ string: String) throws(WireError) {
        let count = string.utf8.count
        try writeCount(count)
        size += count
    }

    /// Counts a component count, which must fit in a `u16`.
    mutating func writeComponentCount(_ count: Int) throws(WireError) {
        guard count <= Int(UInt16.max) else { throw .invalidPath(frameType) }
        size += 2
    }

    /// Counts a path component, which must be neither empty nor contain `/`.
    mutating func writeComponent(_ component: String) throws(WireError) {
        let utf8 = component.utf8
        let hasSlash =
            utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "/")) }
            ?? utf8.contains(UInt8(ascii: "/"))
        guard !component.isEmpty, !hasSlash else { throw .invalidPath(frameType) }
        try writeString(component)
    }

    /// Counts a presenter failure's bytes after checking that they decode as a ``RemotePresenterError``;
    /// otherwise throws what decoding them would.
    mutating func writeEncoded(_ failure: PresenterFailure) throws(WireError) {
        let frameType = frameType
        let validation = failure.encoded.withUnsafeBytes { raw in
            Result { () throws(WireError) in
                var reader = WireReader(raw, frameType: frameType)
                _ = try reader.readRemotePresenterError()
                try reader.finish()
            }
        }
        try validation.get()
        size += failure.encoded.count
    }

    /// Counts an encoded version, which must be at most ``WireProtocol/maximumVersionLength`` bytes.
    mutating func writeVersion(_ bytes: [UInt8]) throws(WireError) {
        guard bytes.count <= WireProtocol.maximumVersionLength else {
            throw .versionTooLarge(frameType, count: bytes.count)
        }
        size += 4 + bytes.count
    }
}
