import Crypto
import Foundation
import Synchronization

/// An entity tag (RFC 9110 §8.8.3): an opaque string, strong or weak, that names one version of content.
///
/// The store's tags are strong and made from content: the lowercase hex SHA-256 of the bytes, so that the same
/// bytes always give the same tag (a write of identical bytes changes nothing) and an operator can compare a
/// tag with `sha256sum FILE`. SHA-256 rather than a faster non-cryptographic hash because a tag guards writes
/// (a write names the version it replaces by its tag): a collision must not be constructible.
public struct EntityTag: Sendable, Hashable, CustomStringConvertible {
    /// The text between the quotes.
    public let opaqueTag: String
    /// Whether the tag is weak (`W/"…"`): it never matches in a strong comparison.
    public let isWeak: Bool

    /// Makes a tag from its parts; nil when `opaqueTag` holds a character RFC 9110 forbids there (a quote, a
    /// space, a control character).
    public init?(opaqueTag: String, isWeak: Bool = false) {
        guard opaqueTag.utf8.allSatisfy(Self.isTagCharacter) else { return nil }
        self.opaqueTag = opaqueTag
        self.isWeak = isWeak
    }

    private init(checkedOpaqueTag: String) {
        self.opaqueTag = checkedOpaqueTag
        self.isWeak = false
    }

    /// The strong tag of `content`: the lowercase hex SHA-256 of its bytes.
    public init(content: some DataProtocol) {
        var hasher = ContentHasher()
        hasher.update(content)
        self = hasher.finalize()
    }

    /// The strong tag of content made of several parts in order (a document of several files), from the parts'
    /// tags: the SHA-256 of each tag's text followed by a line feed. One part keeps its own tag.
    public init(combining parts: [EntityTag]) {
        if parts.count == 1, !parts[0].isWeak {
            self = parts[0]
            return
        }
        var hasher = ContentHasher()
        for part in parts { hasher.update(Array((part.opaqueTag + "\n").utf8)) }
        self = hasher.finalize()
    }

    /// The validator of a document whose content has the tag `content` at `version`: `"<content>-<version>"`.
    public init(content: EntityTag, version: Int64) {
        self.init(checkedOpaqueTag: content.opaqueTag + "-" + String(version))
    }

    /// The version of a document validator (``init(content:version:)``): the number after its last `-`; nil
    /// for a tag of another form.
    public var documentVersion: Int64? {
        guard !isWeak, let dash = opaqueTag.lastIndex(of: "-") else { return nil }
        return Int64(opaqueTag[opaqueTag.index(after: dash)...])
    }

    /// The tag as RFC 9110 writes it: `"abc"`, or `W/"abc"` for a weak one.
    public var description: String { (isWeak ? "W/" : "") + "\"" + opaqueTag + "\"" }

    /// The strong comparison of RFC 9110 §8.8.3.2: both tags strong and their texts equal.
    public func matchesStrongly(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaqueTag == other.opaqueTag
    }

    /// The weak comparison of RFC 9110 §8.8.3.2: the texts equal, weakness ignored.
    public func matchesWeakly(_ other: EntityTag) -> Bool {
        opaqueTag == other.opaqueTag
    }

    /// How many bytes this process has hashed into content tags (SHA-256), counted so that tests can hold a
    /// request to hashing its bytes once.
    package static var bytesHashed: Int { hashedBytes.load(ordering: .relaxed) }
    private static let hashedBytes = Atomic<Int>(0)

    /// `etagc` of RFC 9110: `!`, `#` to `~`, and bytes from 0x80 (obs-text).
    package static func isTagCharacter(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x7E).contains(byte) || byte >= 0x80
    }

    /// Hashes content that arrives in pieces (an upload streamed to disk) into the same tag as
    /// ``EntityTag/init(content:)`` gives for all of it at once.
    public struct ContentHasher {
        private var hashFunction = SHA256()

        /// Starts an empty hash.
        public init() {}

        /// Adds the next piece of the content.
        public mutating func update(_ bytes: some DataProtocol) {
            hashFunction.update(data: bytes)
            EntityTag.hashedBytes.add(bytes.count, ordering: .relaxed)
        }

        /// The tag of all the pieces added so far.
        public func finalize() -> EntityTag {
            let digits = Array("0123456789abcdef".utf8)
            var hex: [UInt8] = []
            hex.reserveCapacity(SHA256.byteCount * 2)
            for byte in hashFunction.finalize() {
                hex.append(digits[Int(byte >> 4)])
                hex.append(digits[Int(byte & 0x0F)])
            }
            return EntityTag(checkedOpaqueTag: String(decoding: hex, as: UTF8.self))
        }
    }
}
