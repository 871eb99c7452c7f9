import StoreCore

/// Reads entity tags and lists of them (`#entity-tag`, RFC 9110 §5.6.1 and §8.8.3) from header text. A comma
/// may appear inside a tag's quotes, so lists are scanned tag by tag, never split on commas.
struct EntityTagScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: Substring) {
        bytes = Array(text.utf8)
    }

    /// Whether every byte was read.
    var isAtEnd: Bool { index == bytes.count }

    /// Skips optional whitespace (spaces and tabs).
    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
            index += 1
        }
    }

    /// Reads `byte` if it is next.
    mutating func scan(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Reads one `entity-tag` (`"abc"` or `W/"abc"`); nil, with the position undefined, when none is next.
    mutating func scanEntityTag() -> EntityTag? {
        let isWeak = scan(UInt8(ascii: "W"))
        if isWeak, !scan(UInt8(ascii: "/")) { return nil }
        guard scan(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count, EntityTag.isTagCharacter(bytes[index]) { index += 1 }
        let opaqueTag = String(decoding: bytes[start..<index], as: UTF8.self)
        guard scan(UInt8(ascii: "\"")) else { return nil }
        return EntityTag(opaqueTag: opaqueTag, isWeak: isWeak)
    }

    /// Reads a comma-separated list of entity tags up to the end, allowing empty elements as RFC 9110 §5.6.1
    /// asks recipients to; nil when anything else is there or the list has no tag.
    mutating func scanEntityTagList() -> [EntityTag]? {
        var tags: [EntityTag] = []
        while true {
            skipWhitespace()
            if isAtEnd { break }
            if scan(UInt8(ascii: ",")) { continue }
            guard let tag = scanEntityTag() else { return nil }
            tags.append(tag)
            skipWhitespace()
            if isAtEnd { break }
            guard scan(UInt8(ascii: ",")) else { return nil }
        }
        return tags.isEmpty ? nil : tags
    }
}
