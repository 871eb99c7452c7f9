import CoordinationArbiter

/// The second pass of ``WireEncoder``: stores a frame's bytes into memory of exactly the size that
/// ``WireSizeCounter`` counted. Values were checked by the counter, so storing cannot fail.
struct WireBufferWriter: WireSink {
    /// The memory to fill.
    private let bytes: UnsafeMutableRawBufferPointer
    /// The offset of the next byte to store.
    private var offset = 0

    /// Makes a writer that fills `bytes` from the start.
    init(_ bytes: UnsafeMutableRawBufferPointer) { self.bytes = bytes }

    /// True once every byte of the memory is stored.
    var isFull: Bool { offset == bytes.count }

    /// Stores an integer, little-endian.
    mutating func write<Integer: FixedWidthInteger>(_ value: Integer) {
        let size = MemoryLayout<Integer>.size
        precondition(bytes.count - offset >= size, "WireSizeCounter and WireBufferWriter disagree")
        bytes.storeBytes(of: value.littleEndian, toByteOffset: offset, as: Integer.self)
        offset += size
    }

    /// Stores an array count as `u32`.
    mutating func writeCount(_ count: Int) { write(UInt32(truncatingIfNeeded: count)) }

    /// Stores a string as `u32` byte count and UTF-8.
    mutating func writeString(_ string: String) {
        let utf8 = string.utf8
        writeCount(utf8.count)
        let copied: Void? = utf8.withContiguousStorageIfAvailable { copy(UnsafeRawBufferPointer($0)) }
        if copied == nil {
            var string = string
            string.withUTF8 { copy(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Stores a component count as `u16`.
    mutating func writeComponentCount(_ count: Int) { write(UInt16(truncatingIfNeeded: count)) }

    /// Stores a path component as a string.
    mutating func writeComponent(_ component: String) { writeString(component) }

    /// Stores a presenter failure's bytes as they are.
    mutating func writeEncoded(_ failure: PresenterFailure) {
        failure.encoded.withUnsafeBytes { copy($0) }
    }

    /// Stores an encoded version as `u32` count and the bytes.
    mutating func writeVersion(_ bytes: [UInt8]) {
        writeCount(bytes.count)
        bytes.withUnsafeBytes { copy($0) }
    }

    /// Stores raw bytes.
    private mutating func copy(_ source: UnsafeRawBufferPointer) {
        precondition(bytes.count - offset >= source.count, "WireSizeCounter and WireBufferWriter disagree")
        guard let base = bytes.baseAddress, let sourceBase = source.baseAddress else { return }
        (base + offset).copyMemory(from: sourceBase, byteCount: source.count)
        offset += source.count
    }
}
