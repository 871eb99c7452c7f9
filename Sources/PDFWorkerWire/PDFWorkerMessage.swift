/// The messages between the service and a PDF worker process (`quire-pdf worker`), one per
/// `SOCK_SEQPACKET` packet: a request with the PDF attached as a sealed memfd (and, when the document has unsaved
/// edits, a second memfd with the ``PDFWorkerEdit`` log the worker applies first), a reply with the result
/// attached as a memfd. Both sides decode what the other sent as hostile input: every field is bounded, and a
/// packet that is not exactly one message (text fields included: they are UTF-8) is refused with a
/// ``PDFWorkerWireError``, never a crash.
///
/// Layout (little-endian): a request is `magic(4) operation(1) flags(1) page(4) pageCount(4) dpi(4)
/// passwordLength(2) password argumentLength(2) argument editsLength(4)`; a reply is `magic(4) status(1)
/// messageLength(2) resultLength(8) message`.
public enum PDFWorkerMessage {
    /// "QPW" and the version byte (3: requests carry a page count).
    static let magic: [UInt8] = [0x51, 0x50, 0x57, 0x33]
    /// The largest request packet either side sends or accepts.
    public static let maximumPacketSize = 8192
    /// The largest reply packet (a small result travels inline in it).
    public static let maximumReplySize = 65536
    /// The largest result a reply carries inline; larger ones travel in a memfd.
    public static let maximumInlineResult = 60 * 1024
    /// The longest password (in UTF-8 bytes) a request carries.
    public static let maximumPasswordLength = 1024
    /// The longest argument (the text to find, in UTF-8 bytes) a request carries.
    public static let maximumArgumentLength = 1024
    /// The longest failure message a reply carries.
    public static let maximumMessageLength = 4096
    /// The largest edit log a request may attach, in bytes.
    public static let maximumEditsLength = 64 << 20
}

/// What a worker is asked to do with the PDF attached to the request.
public struct PDFWorkerRequest: Sendable, Equatable {
    /// The operations a worker performs. Each first opens the PDF (with the password) and applies the attached
    /// edits, if any.
    public enum Operation: UInt8, Sendable, CaseIterable {
        /// Render page `pageIndex` at `dpi` to PNG.
        case renderPNG = 1
        /// The text of page `pageIndex`.
        case text = 2
        /// Open the PDF and read every page's size and label and the metadata: answers a ``PDFWorkerSummary``.
        case probe = 3
        /// Where `argument` occurs on page `pageIndex`: answers ``PDFWorkerRects``.
        case find = 4
        /// The PDF with the edits applied, as a complete file (what a save writes).
        case save = 5
        /// The text of the `pageCount` pages from `pageIndex`: answers ``PDFWorkerTexts`` (one request for many
        /// pages, which a worker may extract on several threads: the search index's extraction).
        case texts = 6
    }

    /// What to do.
    public var operation: Operation
    /// The page, from 0, within the attached PDF.
    public var pageIndex: UInt32
    /// How many pages from `pageIndex` (``Operation/texts`` only; 0 for the other operations).
    public var pageCount: UInt32
    /// Dots per inch (renders only).
    public var dpi: UInt32
    /// The password that opens the PDF, if it needs one.
    public var password: String?
    /// The text to find (finds only).
    public var argument: String
    /// Whether a find tells upper from lower case.
    public var caseSensitive: Bool
    /// The length of the attached edit log (0: no edits, no second descriptor).
    public var editsLength: UInt32

    /// Makes a request.
    public init(
        operation: Operation, pageIndex: UInt32, pageCount: UInt32 = 0, dpi: UInt32 = 0, password: String? = nil,
        argument: String = "", caseSensitive: Bool = false, editsLength: UInt32 = 0
    ) {
        self.operation = operation
        self.pageIndex = pageIndex
        self.pageCount = pageCount
        self.dpi = dpi
        self.password = password
        self.argument = argument
        self.caseSensitive = caseSensitive
        self.editsLength = editsLength
    }

    /// The packet.
    /// - Throws: ``PDFWorkerWireError/fieldTooLong(_:)`` for a password or argument over its bound.
    public func encoded() throws(PDFWorkerWireError) -> [UInt8] {
        let passwordBytes = password.map { Array($0.utf8) }
        guard (passwordBytes?.count ?? 0) <= PDFWorkerMessage.maximumPasswordLength else {
            throw .fieldTooLong("password")
        }
        let argumentBytes = Array(argument.utf8)
        guard argumentBytes.count <= PDFWorkerMessage.maximumArgumentLength else { throw .fieldTooLong("argument") }
        guard Int(editsLength) <= PDFWorkerMessage.maximumEditsLength else { throw .fieldTooLong("edit log") }
        var packet = PDFWorkerMessage.magic
        packet.append(operation.rawValue)
        packet.append((passwordBytes == nil ? 0 : 1) | (caseSensitive ? 2 : 0))
        packet.appendLittleEndian(pageIndex)
        packet.appendLittleEndian(pageCount)
        packet.appendLittleEndian(dpi)
        packet.appendLittleEndian(UInt16(passwordBytes?.count ?? 0))
        packet.append(contentsOf: passwordBytes ?? [])
        packet.appendLittleEndian(UInt16(argumentBytes.count))
        packet.append(contentsOf: argumentBytes)
        packet.appendLittleEndian(editsLength)
        return packet
    }

    /// Decodes a packet.
    /// - Throws: a ``PDFWorkerWireError`` for anything but exactly one well-formed request.
    public init(decoding packet: [UInt8]) throws(PDFWorkerWireError) {
        var reader = PacketReader(packet)
        try reader.expectMagic()
        guard let operation = Operation(rawValue: try reader.byte()) else { throw .unknownValue("operation") }
        let flags = try reader.byte()
        guard flags <= 3 else { throw .unknownValue("flags") }
        let hasPassword = flags & 1 == 1
        let pageIndex = try reader.uint32()
        let pageCount = try reader.uint32()
        let dpi = try reader.uint32()
        let passwordLength = Int(try reader.uint16())
        guard passwordLength <= PDFWorkerMessage.maximumPasswordLength else { throw .fieldTooLong("password") }
        let passwordBytes = try reader.bytes(passwordLength)
        guard hasPassword || passwordLength == 0 else { throw .unknownValue("flags") }
        let argumentLength = Int(try reader.uint16())
        guard argumentLength <= PDFWorkerMessage.maximumArgumentLength else { throw .fieldTooLong("argument") }
        let argumentBytes = try reader.bytes(argumentLength)
        let editsLength = try reader.uint32()
        guard Int(editsLength) <= PDFWorkerMessage.maximumEditsLength else { throw .fieldTooLong("edit log") }
        try reader.expectEnd()
        // Text is not repaired: a password with U+FFFD in it is another password, and may not re-encode.
        var password: String?
        if hasPassword {
            guard let text = String(validating: passwordBytes, as: UTF8.self) else { throw .unknownValue("password") }
            password = text
        }
        guard let argument = String(validating: argumentBytes, as: UTF8.self) else { throw .unknownValue("argument") }
        self.init(
            operation: operation, pageIndex: pageIndex, pageCount: pageCount, dpi: dpi, password: password,
            argument: argument, caseSensitive: flags & 2 == 2, editsLength: editsLength)
    }
}

/// A worker's answer: the result (small ones inline, larger ones in the attached memfd), or why it failed.
public struct PDFWorkerReply: Sendable, Equatable {
    /// How the operation ended.
    public enum Status: UInt8, Sendable {
        /// Done: `inlineResult` or the attached memfd holds `resultLength` bytes.
        case succeeded = 0
        /// The PDF needs a password, or another one.
        case passwordRequired = 1
        /// The PDF is damaged or not a PDF.
        case damaged = 2
        /// The page does not exist.
        case pageOutOfRange = 3
        /// The resolution is out of range, or the image would be too large.
        case invalidArgument = 4
        /// Anything else (out of memory, say).
        case failed = 5
    }

    /// How it ended.
    public var status: Status
    /// The result's length in bytes (0 unless it succeeded).
    public var resultLength: UInt64
    /// What went wrong, for a log line or a problem's detail (empty on success).
    public var message: String
    /// The result itself when it is small (at most ``PDFWorkerMessage/maximumInlineResult`` bytes): no memfd is
    /// attached then. Empty when the result is in the attached memfd, or empty.
    public var inlineResult: [UInt8]

    /// Makes a reply.
    public init(status: Status, resultLength: UInt64 = 0, message: String = "", inlineResult: [UInt8] = []) {
        self.status = status
        self.resultLength = resultLength
        self.message = message
        self.inlineResult = inlineResult
    }

    /// A successful reply carrying `result` inline.
    /// - Precondition: `result.count` is at most ``PDFWorkerMessage/maximumInlineResult``.
    public static func succeeded(inline result: [UInt8]) -> PDFWorkerReply {
        PDFWorkerReply(status: .succeeded, resultLength: UInt64(result.count), inlineResult: result)
    }

    /// The packet (a message over the bound is cut at a character boundary).
    public func encoded() -> [UInt8] {
        var messageBytes = Array(message.utf8)
        if messageBytes.count > PDFWorkerMessage.maximumMessageLength {
            messageBytes = Array(
                String(decoding: messageBytes.prefix(PDFWorkerMessage.maximumMessageLength - 4), as: UTF8.self).utf8)
        }
        var packet = PDFWorkerMessage.magic
        packet.append(status.rawValue)
        packet.appendLittleEndian(UInt16(messageBytes.count))
        packet.appendLittleEndian(resultLength)
        packet.append(contentsOf: messageBytes)
        packet.append(contentsOf: inlineResult)
        return packet
    }

    /// Decodes a packet.
    /// - Throws: a ``PDFWorkerWireError`` for anything but exactly one well-formed reply.
    public init(decoding packet: [UInt8]) throws(PDFWorkerWireError) {
        var reader = PacketReader(packet)
        try reader.expectMagic()
        guard let status = Status(rawValue: try reader.byte()) else { throw .unknownValue("status") }
        let messageLength = Int(try reader.uint16())
        guard messageLength <= PDFWorkerMessage.maximumMessageLength else { throw .fieldTooLong("message") }
        let resultLength = try reader.uint64()
        let message = try reader.bytes(messageLength)
        guard status == .succeeded || resultLength == 0 else { throw .unknownValue("result length") }
        // What follows the message is the whole result, inline, or nothing (the result is in the memfd).
        var inline: [UInt8] = []
        if reader.remaining > 0 {
            guard status == .succeeded, UInt64(reader.remaining) == resultLength,
                reader.remaining <= PDFWorkerMessage.maximumInlineResult
            else { throw .trailingBytes(reader.remaining) }
            inline = try reader.bytes(reader.remaining)
        }
        try reader.expectEnd()
        guard let text = String(validating: message, as: UTF8.self) else { throw .unknownValue("message") }
        self.init(status: status, resultLength: resultLength, message: text, inlineResult: inline)
    }
}

/// Why a worker packet was refused.
public enum PDFWorkerWireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The packet does not start with the protocol's magic and version.
    case badMagic
    /// The packet ends inside a field.
    case truncated
    /// Bytes follow the message.
    case trailingBytes(Int)
    /// A field has a value the protocol does not define (a text field that is not UTF-8, among others).
    case unknownValue(String)
    /// A field is longer than its bound.
    case fieldTooLong(String)

    /// One line for a log.
    public var description: String {
        switch self {
        case .badMagic: return "the packet is not a Quire PDF worker message of this version"
        case .truncated: return "the packet ends inside a field"
        case .trailingBytes(let count): return "\(count) bytes follow the message"
        case .unknownValue(let field): return "the \(field) has a value the protocol does not define"
        case .fieldTooLong(let field): return "the \(field) is longer than the protocol allows"
        }
    }
}

/// Reads fields from a packet, never past its end.
struct PacketReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The bytes not read yet.
    var remaining: Int { bytes.count - offset }

    mutating func expectMagic() throws(PDFWorkerWireError) {
        guard bytes.count >= 4, Array(bytes[0..<4]) == PDFWorkerMessage.magic else { throw .badMagic }
        offset = 4
    }

    mutating func byte() throws(PDFWorkerWireError) -> UInt8 { try bytes(1)[0] }

    mutating func uint16() throws(PDFWorkerWireError) -> UInt16 {
        try bytes(2).reversed().reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func uint32() throws(PDFWorkerWireError) -> UInt32 {
        try bytes(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64() throws(PDFWorkerWireError) -> UInt64 {
        try bytes(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func double() throws(PDFWorkerWireError) -> Double { Double(bitPattern: try uint64()) }

    /// A string of at most `limit` UTF-8 bytes (`u32` length, then the bytes).
    mutating func string(_ field: String, limit: Int) throws(PDFWorkerWireError) -> String {
        let length = Int(try uint32())
        guard length <= limit else { throw .fieldTooLong(field) }
        guard let text = String(validating: try bytes(length), as: UTF8.self) else { throw .unknownValue(field) }
        return text
    }

    /// A presence byte (0 or 1), then the string when present.
    mutating func optionalString(_ field: String, limit: Int) throws(PDFWorkerWireError) -> String? {
        switch try byte() {
        case 0: return nil
        case 1: return try string(field, limit: limit)
        default: throw .unknownValue(field)
        }
    }

    /// A presence byte (0 or 1), then the number when present.
    mutating func optionalDouble(_ field: String) throws(PDFWorkerWireError) -> Double? {
        switch try byte() {
        case 0: return nil
        case 1: return try double()
        default: throw .unknownValue(field)
        }
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset == bytes.count }

    mutating func bytes(_ count: Int) throws(PDFWorkerWireError) -> [UInt8] {
        guard count >= 0, count <= bytes.count - offset else { throw .truncated }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    func expectEnd() throws(PDFWorkerWireError) {
        guard offset == bytes.count else { throw .trailingBytes(bytes.count - offset) }
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var value = value.littleEndian
        Swift.withUnsafeBytes(of: &value) { append(contentsOf: $0) }
    }

    mutating func appendDouble(_ value: Double) { appendLittleEndian(value.bitPattern) }

    mutating func appendString(_ value: String) {
        let bytes = Array(value.utf8)
        appendLittleEndian(UInt32(bytes.count))
        append(contentsOf: bytes)
    }

    mutating func appendOptionalString(_ value: String?) {
        guard let value else { return append(0) }
        append(1)
        appendString(value)
    }

    mutating func appendOptionalDouble(_ value: Double?) {
        guard let value else { return append(0) }
        append(1)
        appendDouble(value)
    }
}
