/// A document's identifier in the store: an opaque string, safe in a URL path segment and as a file name.
///
/// Valid identifiers are 1 to 64 ASCII letters, digits, `-` and `_`, starting with a letter or digit, so that
/// no identifier can name a path (`..`, `/`) or need escaping. The store makes new ones with ``random()``.
public struct DocumentID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The identifier as it appears in URLs, the catalog and events.
    public let rawValue: String

    /// The longest identifier accepted.
    public static let maximumLength = 64

    /// Checks `rawValue`; nil when it is not a valid identifier (for example a path or an empty string).
    public init?(rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// A new identifier: 16 characters of lowercase Crockford base32 (80 random bits).
    public static func random() -> DocumentID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A new identifier drawn from `generator` (tests pass a seeded one): sixteen characters of a 32-letter
    /// alphabet, 80 random bits, five per character, taken from two draws of `generator` (the system's costs one
    /// `getrandom` call a draw).
    public static func random(using generator: inout some RandomNumberGenerator) -> DocumentID {
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)
        let draws = (generator.next() as UInt64, generator.next() as UInt64)
        let characters = (0..<16).map { index in
            let bits = index < 12 ? draws.0 >> (index * 5) : draws.1 >> ((index - 12) * 5)
            return alphabet[Int(bits & 31)]
        }
        return DocumentID(checked: String(decoding: characters, as: UTF8.self))
    }

    private init(checked rawValue: String) {
        self.rawValue = rawValue
    }

    /// Whether `string` is a valid identifier.
    public static func isValid(_ string: String) -> Bool {
        let bytes = string.utf8
        guard (1...maximumLength).contains(bytes.count), let first = bytes.first, isAlphanumeric(first) else {
            return false
        }
        return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// The identifier itself.
    public var description: String { rawValue }

    /// Orders identifiers by their text.
    public static func < (lhs: DocumentID, rhs: DocumentID) -> Bool { lhs.rawValue < rhs.rawValue }
}
