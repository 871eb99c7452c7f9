/// Turns the bytes of a `text/event-stream` into events, as WHATWG HTML's "event stream interpretation" says.
///
/// Feed it the bytes as they arrive, in chunks of any size (a line or a CRLF may be split between chunks); it
/// returns the events each chunk completes. Lines end with CRLF, LF or CR; a leading byte-order mark is
/// skipped; `:` starts a comment (the service's keep-alives); unknown fields are ignored; an event is dispatched
/// at a blank line, and only when it has data.
///
/// The stream comes from the network and may be crafted: one event (its lines and data together) may hold at
/// most ``maximumEventBytes`` bytes, and a longer one ends the parse with ``EventTooLarge`` rather than grow
/// without bound (a line without end, or data lines without a blank line, would otherwise take all memory).
public struct ServerSentEventParser: Sendable {
    /// What ``consume(_:)`` throws when an event grows beyond ``maximumEventBytes``.
    public struct EventTooLarge: Error, Sendable, Equatable, CustomStringConvertible {
        /// The bound that was passed.
        public let maximumEventBytes: Int

        /// The error for a parser bounded at `maximumEventBytes`.
        public init(maximumEventBytes: Int) {
            self.maximumEventBytes = maximumEventBytes
        }

        /// "an event of the stream is longer than N bytes".
        public var description: String { "an event of the stream is longer than \(maximumEventBytes) bytes" }
    }

    /// The most bytes one event may hold: its data lines together with the line being read (line ends excluded;
    /// comments and other fields count only while their line is read).
    public let maximumEventBytes: Int
    /// The last event id the stream set (`id:` without NUL); kept across events, as a reconnecting client sends it.
    public private(set) var lastEventID = ""
    /// The reconnection time the stream asked for (`retry:`), in milliseconds.
    public private(set) var reconnectionTime: Int?

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType = ""
    private var afterCarriageReturn = false
    private var atStreamStart = true
    /// Whether an event grew beyond the bound: nothing more is accepted.
    private var overflowed = false

    /// Makes a parser at the start of a stream that accepts events of at most `maximumEventBytes` bytes (1 MiB
    /// unless given; the service's events are a few hundred bytes).
    public init(maximumEventBytes: Int = 1 << 20) {
        self.maximumEventBytes = max(1, maximumEventBytes)
    }

    /// Consumes the next bytes of the stream; returns the events they complete, in order.
    /// - Throws: ``EventTooLarge`` when an event grows beyond ``maximumEventBytes``: the stream cannot be trusted
    ///   after it, and the parser accepts nothing more.
    public mutating func consume(_ bytes: some Sequence<UInt8>) throws(EventTooLarge) -> [ServerSentEventMessage] {
        guard !overflowed else { throw EventTooLarge(maximumEventBytes: maximumEventBytes) }
        var events: [ServerSentEventMessage] = []
        for byte in bytes {
            if afterCarriageReturn {
                afterCarriageReturn = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\r"):
                afterCarriageReturn = true
                if let event = endLine() { events.append(event) }
            case UInt8(ascii: "\n"):
                if let event = endLine() { events.append(event) }
            default:
                // What the event keeps: its data so far and the line being read (a comment's or another
                // field's line is dropped or replaces what it set when it ends).
                guard line.count + data.count < maximumEventBytes else {
                    overflowed = true
                    throw EventTooLarge(maximumEventBytes: maximumEventBytes)
                }
                line.append(byte)
            }
        }
        return events
    }

    /// Ends the current line: a blank one dispatches the event, another is a field or a comment.
    private mutating func endLine() -> ServerSentEventMessage? {
        defer { line.removeAll(keepingCapacity: true) }
        if atStreamStart {
            atStreamStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        }
        guard !line.isEmpty else { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = line[...]
            value = []
        }
        switch String(decoding: field, as: UTF8.self) {
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "data":
            if hasData { data.append(UInt8(ascii: "\n")) }
            data.append(contentsOf: value)
            hasData = true
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                reconnectionTime = Int(String(decoding: value, as: UTF8.self))
            }
        default:
            break
        }
        return nil
    }

    /// Dispatches the event being built, if it has data, and starts the next one.
    private mutating func dispatch() -> ServerSentEventMessage? {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = ""
        }
        guard hasData else { return nil }
        return ServerSentEventMessage(
            lastEventID: lastEventID, event: eventType.isEmpty ? "message" : eventType,
            data: String(decoding: data, as: UTF8.self))
    }
}
