import CoordinationArbiter

/// Where ``WireEncoder`` puts a frame: first a ``WireSizeCounter``, which checks every value and adds up the
/// size, then a ``WireBufferWriter`` that stores the bytes into exactly that much memory.
///
/// The layouts are written once, over this protocol (see `WireSink+Values.swift` and ``WireEncoder``), so the
/// two passes cannot disagree.
protocol WireSink {
    /// What the sink throws: ``WireError`` when counting, `Never` when storing (values were checked by then).
    associatedtype Failure: Error

    /// Adds an integer, little-endian.
    mutating func write<Integer: FixedWidthInteger>(_ value: Integer)
    /// Adds an array count as `u32`.
    mutating func writeCount(_ count: Int) throws(Failure)
    /// Adds a string as `u32` byte count and UTF-8.
    mutating func writeString(_ string: String) throws(Failure)
    /// Adds a path's component count as `u16`.
    mutating func writeComponentCount(_ count: Int) throws(Failure)
    /// Adds a path component as a string; it must be neither empty nor contain `/`.
    mutating func writeComponent(_ component: String) throws(Failure)
    /// Adds a presenter failure's bytes, which must be a ``RemotePresenterError`` encoding.
    mutating func writeEncoded(_ failure: PresenterFailure) throws(Failure)
    /// Adds a version notice's encoded version as `u32` count and the bytes (at most
    /// ``WireProtocol/maximumVersionLength``).
    mutating func writeVersion(_ bytes: [UInt8]) throws(Failure)
}

/// The encodings built from the primitives: bools, optionals and arrays.
extension WireSink {
    /// Adds a bool as `u8` 0 or 1.
    mutating func write(_ value: Bool) { write(UInt8(value ? 1 : 0)) }

    /// Adds an optional as `u8` 0, or `u8` 1 and the value.
    mutating func write<Value>(
        _ value: Value?, _ writeValue: (inout Self, Value) throws(Failure) -> Void
    ) throws(Failure) {
        guard let value else { return write(UInt8(0)) }
        write(UInt8(1))
        try writeValue(&self, value)
    }

    /// Adds an array as `u32` count and the elements.
    mutating func write<Element>(
        _ elements: [Element], _ writeElement: (inout Self, Element) throws(Failure) -> Void
    ) throws(Failure) {
        try writeCount(elements.count)
        for element in elements { try writeElement(&self, element) }
    }
}
