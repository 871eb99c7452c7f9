/// Reads wire-encoded values from the payload of one frame, checking every bound (see ``WireProtocol``).
///
/// The reader never traps and never allocates more than the bytes it reads justify: an array count is checked
/// against the bytes left before anything is reserved.
struct WireReader {
    /// The bytes being read; they stay valid while the reader is used.
    private let bytes: UnsafeRawBufferPointer
    /// The offset of the next unread byte.
    private var offset = 0
    /// The frame being read, named in errors.
    let frameType: WireFrameType

    /// The most elements reserved up front for an array; longer arrays grow as their elements are read.
    private static let reservationLimit = 1024

    /// Reads `bytes`, the payload of a frame of type `frameType`.
    init(_ bytes: UnsafeRawBufferPointer, frameType: WireFrameType) {
        self.bytes = bytes
        self.frameType = frameType
    }

    /// The number of unread bytes.
    var remainingCount: Int { bytes.count - offset }

    /// Reads a little-endian integer.
    mutating func read<Integer: FixedWidthInteger>(_: Integer.Type) throws(WireError) -> Integer {
        let size = MemoryLayout<Integer>.size
        guard remainingCount >= size else { throw .truncatedPayload(frameType) }
        let value = bytes.loadUnaligned(fromByteOffset: offset, as: Integer.self)
        offset += size
        return Integer(littleEndian: value)
    }

    /// Reads a tag byte; the caller switches over it and reports an unknown one with ``badTag(_:_:)``.
    mutating func readTag() throws(WireError) -> UInt8 { try read(UInt8.self) }

    /// The error for a tag byte that means nothing for `field` (an enum, an optional or a bool).
    func badTag(_ field: StaticString, _ tag: UInt8) -> WireError {
        .badEnumTag(frameType, field: "\(field)", tag: tag)
    }

    /// Reads a bool encoded as `u8` 0 or 1; `field` names it in errors.
    mutating func readBool(_ field: StaticString) throws(WireError) -> Bool {
        switch try readTag() {
        case 0: return false
        case 1: return true
        case let tag: throw badTag(field, tag)
        }
    }

    /// Reads an array count (`u32`) and checks that the bytes left can hold that many elements of at least
    /// `minimumElementSize` bytes.
    mutating func readCount(minimumElementSize: Int) throws(WireError) -> Int {
        let count = Int(try read(UInt32.self))
        guard count <= remainingCount / minimumElementSize else { throw .truncatedPayload(frameType) }
        return count
    }

    /// Reads an optional: `u8` 0, or `u8` 1 and the value; `field` names it in errors.
    mutating func readOptional<Value>(
        _ field: StaticString, _ readValue: (inout WireReader) throws(WireError) -> Value
    ) throws(WireError) -> Value? {
        try readBool(field) ? try readValue(&self) : nil
    }

    /// Reads an array: `u32` count and the elements, each at least `minimumElementSize` bytes long.
    mutating func readArray<Element>(
        minimumElementSize: Int, _ readElement: (inout WireReader) throws(WireError) -> Element
    ) throws(WireError) -> [Element] {
        let count = try readCount(minimumElementSize: minimumElementSize)
        var elements: [Element] = []
        elements.reserveCapacity(min(count, Self.reservationLimit))
        for _ in 0..<count { elements.append(try readElement(&self)) }
        return elements
    }

    /// Reads the next `count` bytes, which stay valid as long as the reader's bytes.
    mutating func readBytes(count: Int) throws(WireError) -> UnsafeBufferPointer<UInt8> {
        guard count >= 0, count <= remainingCount else { throw .truncatedPayload(frameType) }
        // Frames are read out of `[UInt8]` storage, so the memory is bound to UInt8.
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
        offset += count
        return slice.assumingMemoryBound(to: UInt8.self)
    }

    /// Reads a string: `u32` byte count and UTF-8, validated.
    mutating func readString() throws(WireError) -> String {
        let utf8 = try readBytes(count: Int(try read(UInt32.self)))
        var combined: UInt8 = 0
        for byte in utf8 { combined |= byte }
        return try makeString(utf8, isASCII: combined < 0x80)
    }

    /// Reads a path component: a string that is neither empty nor contains `/`.
    mutating func readPathComponent() throws(WireError) -> String {
        let utf8 = try readBytes(count: Int(try read(UInt32.self)))
        var combined: UInt8 = 0
        var hasSlash = false
        for byte in utf8 {
            combined |= byte
            hasSlash = hasSlash || byte == UInt8(ascii: "/")
        }
        guard !utf8.isEmpty, !hasSlash else { throw .invalidPath(frameType) }
        return try makeString(utf8, isASCII: combined < 0x80)
    }

    /// The string of `utf8`, which must be valid UTF-8 (it is if every byte is ASCII).
    private func makeString(_ utf8: UnsafeBufferPointer<UInt8>, isASCII: Bool) throws(WireError) -> String {
        // Making a string replaces invalid sequences with U+FFFD, so the bytes come back unchanged exactly when they
        // are valid. (This is several times faster than the generic `String(validating:as:)`.)
        var string = String(unsafeUninitializedCapacity: utf8.count) { target in
            _ = target.initialize(fromContentsOf: utf8)
            return utf8.count
        }
        if isASCII { return string }
        let isValid = string.withUTF8 { decoded in
            guard decoded.count == utf8.count else { return false }
            for index in 0..<decoded.count where decoded[index] != utf8[index] { return false }
            return true
        }
        guard isValid else { throw .invalidUTF8(frameType) }
        return string
    }

    /// Reads a value with `readValue` and returns the bytes it spans, copied.
    mutating func readEncoding(of readValue: (inout WireReader) throws(WireError) -> Void) throws(WireError)
        -> [UInt8]
    {
        let start = offset
        try readValue(&self)
        return Array(bytes[start..<offset])
    }

    /// Throws ``WireError/trailingBytes(_:count:)`` unless every byte was read.
    func finish() throws(WireError) {
        guard remainingCount == 0 else { throw .trailingBytes(frameType, count: remainingCount) }
    }
}
