#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import PDFTypes

/// The Info-dictionary metadata (`PDFMetadata` of PDFTypes) on the wire: each entry with a presence byte, dates
/// as seconds since 2001-01-01 (`Date`'s own representation, so that every value travels unchanged).
extension PDFMetadata {
    /// The longest entry accepted, in UTF-8 bytes.
    static let maximumEntryLength = 1 << 20

    func encode(into bytes: inout [UInt8]) {
        for entry in [title, author, subject, keywords, creator, producer] { bytes.appendOptionalString(entry) }
        bytes.appendOptionalDouble(creationDate?.timeIntervalSinceReferenceDate)
        bytes.appendOptionalDouble(modificationDate?.timeIntervalSinceReferenceDate)
    }

    init(reading reader: inout PacketReader) throws(PDFWorkerWireError) {
        let limit = Self.maximumEntryLength
        self.init(
            title: try reader.optionalString("title", limit: limit),
            author: try reader.optionalString("author", limit: limit),
            subject: try reader.optionalString("subject", limit: limit),
            keywords: try reader.optionalString("keywords", limit: limit),
            creator: try reader.optionalString("creator", limit: limit),
            producer: try reader.optionalString("producer", limit: limit),
            creationDate: try reader.optionalDouble("creation date").map { Date(timeIntervalSinceReferenceDate: $0) },
            modificationDate: try reader.optionalDouble("modification date").map { Date(timeIntervalSinceReferenceDate: $0) })
    }
}

/// What a worker found when it opened a PDF (the answer to ``PDFWorkerRequest/Operation/probe``): everything the
/// service shows of a document without asking a worker again.
public struct PDFWorkerSummary: Sendable, Equatable {
    /// One page's size in points and its label.
    public struct Page: Sendable, Equatable {
        /// The width and height in points.
        public var width, height: Double
        /// The page label, if the PDF defines one.
        public var label: String?

        /// A page.
        public init(width: Double, height: Double, label: String?) {
            self.width = width
            self.height = height
            self.label = label
        }
    }

    /// Whether the PDF is encrypted.
    public var isEncrypted: Bool
    /// Every page, in order.
    public var pages: [Page]
    /// The metadata (with the attached edits applied).
    public var metadata: PDFMetadata

    /// A summary.
    public init(isEncrypted: Bool, pages: [Page], metadata: PDFMetadata) {
        self.isEncrypted = isEncrypted
        self.pages = pages
        self.metadata = metadata
    }

    /// The bytes (the result memfd's content).
    public func encoded() -> [UInt8] {
        var bytes = PDFWorkerMessage.magic
        bytes.append(isEncrypted ? 1 : 0)
        bytes.appendLittleEndian(UInt32(pages.count))
        for page in pages {
            bytes.appendDouble(page.width)
            bytes.appendDouble(page.height)
            bytes.appendOptionalString(page.label)
        }
        metadata.encode(into: &bytes)
        return bytes
    }

    /// Decodes a worker's summary.
    /// - Throws: a ``PDFWorkerWireError`` for anything but exactly one well-formed summary.
    public init(decoding bytes: [UInt8]) throws(PDFWorkerWireError) {
        var reader = PacketReader(bytes)
        try reader.expectMagic()
        let encrypted = try reader.byte()
        guard encrypted <= 1 else { throw .unknownValue("encrypted flag") }
        let count = Int(try reader.uint32())
        // Each page takes at least 17 bytes: a count above that is a lie, refused before anything is reserved.
        guard count <= reader.remaining / 17 else { throw .truncated }
        var pages: [Page] = []
        pages.reserveCapacity(count)
        for _ in 0..<count {
            let width = try reader.double()
            let height = try reader.double()
            pages.append(Page(width: width, height: height, label: try reader.optionalString("label", limit: 4096)))
        }
        let metadata = try PDFMetadata(reading: &reader)
        try reader.expectEnd()
        self.init(isEncrypted: encrypted == 1, pages: pages, metadata: metadata)
    }
}

/// An unsaved edit of a document, which a worker applies to the PDF it opened before it does its operation.
/// The service keeps a document's edits as a log of these and sends the log with each request: workers hold
/// no state between requests.
public enum PDFWorkerEdit: Sendable, Equatable {
    /// Replace the metadata.
    case setMetadata(PDFMetadata)
    /// Add a note (`kind` 1) or a highlight (`kind` 2) on page `page` (from 0), rectangle in points.
    case addAnnotation(kind: UInt8, page: UInt32, x: Double, y: Double, width: Double, height: Double, contents: String)

    /// The log's bytes (the edit memfd's content).
    public static func encode(_ edits: [PDFWorkerEdit]) -> [UInt8] {
        var bytes = PDFWorkerMessage.magic
        bytes.appendLittleEndian(UInt32(edits.count))
        for edit in edits {
            switch edit {
            case .setMetadata(let metadata):
                bytes.append(1)
                metadata.encode(into: &bytes)
            case .addAnnotation(let kind, let page, let x, let y, let width, let height, let contents):
                bytes.append(2)
                bytes.append(kind)
                bytes.appendLittleEndian(page)
                for value in [x, y, width, height] { bytes.appendDouble(value) }
                bytes.appendString(contents)
            }
        }
        return bytes
    }

    /// Decodes an edit log.
    /// - Throws: a ``PDFWorkerWireError`` for anything but exactly one well-formed log.
    public static func decode(_ bytes: [UInt8]) throws(PDFWorkerWireError) -> [PDFWorkerEdit] {
        var reader = PacketReader(bytes)
        try reader.expectMagic()
        let count = Int(try reader.uint32())
        guard count <= reader.remaining else { throw .truncated }
        var edits: [PDFWorkerEdit] = []
        for _ in 0..<count {
            switch try reader.byte() {
            case 1:
                edits.append(.setMetadata(try PDFMetadata(reading: &reader)))
            case 2:
                let kind = try reader.byte()
                guard kind == 1 || kind == 2 else { throw .unknownValue("annotation kind") }
                let page = try reader.uint32()
                let x = try reader.double()
                let y = try reader.double()
                let width = try reader.double()
                let height = try reader.double()
                let contents = try reader.string("contents", limit: PDFMetadata.maximumEntryLength)
                edits.append(
                    .addAnnotation(
                        kind: kind, page: page, x: x, y: y, width: width, height: height, contents: contents))
            default:
                throw .unknownValue("edit")
            }
        }
        try reader.expectEnd()
        return edits
    }
}

/// Rectangles in PDF page space (the answer to ``PDFWorkerRequest/Operation/find``).
public enum PDFWorkerRects {
    /// One rectangle: x, y, width, height in points.
    public typealias Rect = (x: Double, y: Double, width: Double, height: Double)

    /// The bytes (the result memfd's content).
    public static func encode(_ rects: [Rect]) -> [UInt8] {
        var bytes = PDFWorkerMessage.magic
        bytes.appendLittleEndian(UInt32(rects.count))
        for rect in rects {
            for value in [rect.x, rect.y, rect.width, rect.height] { bytes.appendDouble(value) }
        }
        return bytes
    }

    /// Decodes a worker's rectangles.
    /// - Throws: a ``PDFWorkerWireError`` for anything but exactly one well-formed list.
    public static func decode(_ bytes: [UInt8]) throws(PDFWorkerWireError) -> [Rect] {
        var reader = PacketReader(bytes)
        try reader.expectMagic()
        let count = Int(try reader.uint32())
        guard count <= reader.remaining / 32 else { throw .truncated }
        var rects: [Rect] = []
        for _ in 0..<count {
            rects.append((try reader.double(), try reader.double(), try reader.double(), try reader.double()))
        }
        try reader.expectEnd()
        return rects
    }
}

/// The text of consecutive pages (the answer to ``PDFWorkerRequest/Operation/texts``), in page order.
public enum PDFWorkerTexts {
    /// The most UTF-8 bytes of one page's text a worker sends (it cuts a longer text at a character boundary)
    /// and the service accepts.
    public static let maximumPageLength = 1 << 20

    /// The bytes (the result memfd's content): each text cut to ``maximumPageLength``.
    public static func encode(_ texts: [String]) -> [UInt8] {
        var bytes = PDFWorkerMessage.magic
        bytes.appendLittleEndian(UInt32(texts.count))
        for text in texts {
            let utf8 = Array(cut(text, toUTF8Bytes: maximumPageLength).utf8)
            bytes.appendLittleEndian(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        return bytes
    }

    /// `text`, cut to at most `limit` UTF-8 bytes with its last character whole.
    public static func cut(_ text: String, toUTF8Bytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var bytes = Array(text.utf8.prefix(limit))
        while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
        if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }  // the lead byte of a cut character
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes a worker's texts.
    /// - Throws: a ``PDFWorkerWireError`` for anything but exactly one well-formed list of UTF-8 texts, each
    ///   within ``maximumPageLength``.
    public static func decode(_ bytes: [UInt8]) throws(PDFWorkerWireError) -> [String] {
        var reader = PacketReader(bytes)
        try reader.expectMagic()
        let count = Int(try reader.uint32())
        // Each text takes at least its 4-byte length: a count above that is a lie, refused before anything is kept.
        guard count <= reader.remaining / 4 else { throw .truncated }
        var texts: [String] = []
        texts.reserveCapacity(count)
        for _ in 0..<count { texts.append(try reader.string("text", limit: maximumPageLength)) }
        try reader.expectEnd()
        return texts
    }
}
