/// One event read from an inotify descriptor.
///
/// Swift imports `struct inotify_event` as 16 bytes without its flexible `name[]`, so events are parsed by
/// hand: `wd` at offset 0, `mask` at 4, `cookie` at 8, `len` at 12 and `len` bytes of NUL-padded name at 16.
struct InotifyEvent: Sendable, Hashable {
    /// The size of the fixed part of a record.
    static let headerSize = 16

    /// The watch descriptor (-1 for `IN_Q_OVERFLOW`).
    var watch: Int32
    /// What happened.
    var mask: InotifyEventMask
    /// Pairs `IN_MOVED_FROM` with its `IN_MOVED_TO`; 0 otherwise.
    var cookie: UInt32
    /// The name of the child inside the watched directory; empty for events on the directory itself.
    var name: String

    /// Creates an event.
    init(watch: Int32, mask: InotifyEventMask, cookie: UInt32 = 0, name: String = "") {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }

    /// Parses every record in `bytes`, as returned by one `read(2)`. A record cut short rejects the whole buffer
    /// (the kernel never returns partial records, so it means the buffer is not what `read` returned).
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(InotifyParseError) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= headerSize else {
                throw InotifyParseError(offset: offset, needed: headerSize, available: bytes.count - offset)
            }
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let cookie = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let available = bytes.count - offset - headerSize
            guard length <= available else {
                throw InotifyParseError(offset: offset, needed: headerSize + length, available: available + headerSize)
            }
            let nameBytes = bytes[(offset + headerSize)..<(offset + headerSize + length)]
            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            events.append(
                InotifyEvent(watch: watch, mask: InotifyEventMask(rawValue: mask), cookie: cookie, name: name))
            offset += headerSize + length
        }
        return events
    }

    /// Parses a byte array; see ``parse(_:)-(UnsafeRawBufferPointer)``.
    static func parse(_ bytes: [UInt8]) throws(InotifyParseError) -> [InotifyEvent] {
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(InotifyParseError) in try parse(buffer) } }
        return try result.get()
    }
}

/// A buffer that ends in the middle of an inotify record.
struct InotifyParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the cut record starts.
    var offset: Int
    /// How many bytes the record needs.
    var needed: Int
    /// How many bytes were left.
    var available: Int

    /// Where the buffer was cut.
    var description: String {
        "truncated inotify record at byte \(offset): needs \(needed) bytes, only \(available) left"
    }
}
