import StoreCore

/// A single byte range of a representation (RFC 9110 §14), resolved against the representation's length:
/// `first` and `last` are inclusive offsets inside it.
public struct ByteRange: Sendable, Hashable {
    /// The offset of the first byte sent.
    public let first: Int
    /// The offset of the last byte sent (inclusive).
    public let last: Int

    /// Makes a range of the offsets `first` to `last`, both included (`0 <= first <= last`).
    public init(first: Int, last: Int) {
        precondition(0 <= first && first <= last, "a byte range runs from a first offset to a last one, not back")
        self.first = first
        self.last = last
    }

    /// The number of bytes in the range.
    public var count: Int { last - first + 1 }

    /// The offsets as a Swift range, for slicing.
    public var offsets: Range<Int> { first..<(last + 1) }

    /// What a `Range` header asks of a representation of a given length.
    public enum Selection: Sendable, Hashable {
        /// Send the whole representation with 200: no `Range` header, or one the service ignores (another unit,
        /// several ranges, invalid syntax — RFC 9110 §14.2 lets a server ignore these).
        case whole
        /// Send these bytes with 206 and ``ByteRange/contentRange(completeLength:)``.
        case partial(ByteRange)
        /// Answer 416 with ``ByteRange/unsatisfiedContentRange(completeLength:)``: the range selects no byte.
        case unsatisfiable
    }

    /// Resolves a `Range` header against a representation of `completeLength` bytes. Supports one range of the
    /// forms `bytes=a-b`, `bytes=a-` and `bytes=-n`; a last offset beyond the end is cut to the end.
    public static func select(rangeHeader: String?, completeLength: Int) -> Selection {
        guard let rangeHeader else { return .whole }
        let trimmed = rangeHeader.trimmingWhitespace()
        guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals].lowercased() == "bytes" else {
            return .whole
        }
        let specifier = trimmed[trimmed.index(after: equals)...].trimmingWhitespace()
        guard !specifier.contains(","), let dash = specifier.firstIndex(of: "-") else { return .whole }
        let firstText = specifier[..<dash]
        let lastText = specifier[specifier.index(after: dash)...]
        if firstText.isEmpty {
            // bytes=-n: the last n bytes.
            guard let suffixLength = decimal(lastText) else { return .whole }
            guard suffixLength > 0, completeLength > 0 else { return .unsatisfiable }
            return .partial(ByteRange(first: max(0, completeLength - suffixLength), last: completeLength - 1))
        }
        guard let first = decimal(firstText) else { return .whole }
        var last = completeLength - 1
        if !lastText.isEmpty {
            guard let requestedLast = decimal(lastText), requestedLast >= first else { return .whole }
            last = min(requestedLast, completeLength - 1)
        }
        guard first < completeLength else { return .unsatisfiable }
        return .partial(ByteRange(first: first, last: last))
    }

    /// `Content-Range` of a 206: `bytes FIRST-LAST/LENGTH`.
    public func contentRange(completeLength: Int) -> String {
        "bytes \(first)-\(last)/\(completeLength)"
    }

    /// `Content-Range` of a 416: `bytes */LENGTH`.
    public static func unsatisfiedContentRange(completeLength: Int) -> String {
        "bytes */\(completeLength)"
    }

    /// A non-negative decimal of ASCII digits only (no sign, no spaces), or nil; values past `Int.max` are
    /// clamped, since they only ever mean "to the end".
    private static func decimal(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int(text) ?? Int.max
    }
}
