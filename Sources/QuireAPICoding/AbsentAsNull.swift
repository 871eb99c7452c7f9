import Foundation

/// A value of a generated type, encoded with every absent optional member written as `null` rather than left out.
///
/// openapi.yaml requires members such as `DocumentInfo.conflict`, `SearchHit.page` or `DocumentList.next` to be
/// present, null when there is nothing to say; swift-openapi-generator's types leave a nil member out when they
/// encode (apple/swift-openapi-generator#934). Wrapped in this, they encode as the schema asks. Members inside
/// arrays, dictionaries and nested objects are written the same way. Dates are written as `datesAs` gives them, when
/// given (a string each, without the nested encoder a date strategy costs); otherwise dates, data and URLs are
/// handed to the encoder as they are, so its strategies for them apply.
///
/// By default every absent member is written as null: use that for schemas whose optional members may all be null
/// (`SearchResults`, `DocumentList`, `DocumentInfo`). For a schema with members that are left out but never null
/// (`Event.from` beside the nullable `Event.etag`), name the nullable ones in `nullMembers`: the others are left
/// out, as the generated type leaves them.
public struct AbsentAsNull<Value: Encodable>: Encodable {
    /// The wrapped value.
    public var value: Value
    /// How the members are written: dates, and which absent members become null.
    var settings: NullWritingSettings

    /// How dates are written, when not by the encoder's date strategy.
    public var datesAs: (@Sendable (Date) -> String)? { settings.datesAs }
    /// The names of the members written as null when absent, at every level; nil for every member.
    public var nullMembers: Set<String>? { settings.nullMembers }

    /// Wraps `value`; its dates are written as `datesAs` gives them when given (RFC 3339, say), and the absent
    /// members named in `nullMembers` (every absent member, when nil) as null.
    public init(_ value: Value, datesAs: (@Sendable (Date) -> String)? = nil, nullMembers: Set<String>? = nil) {
        self.init(value, settings: NullWritingSettings(datesAs: datesAs, nullMembers: nullMembers))
    }

    init(_ value: Value, settings: NullWritingSettings) {
        self.value = value
        self.settings = settings
    }

    /// Encodes the value with absent members as `null`.
    /// - Throws: What encoding the value throws.
    public func encode(to encoder: any Encoder) throws {
        try value.encode(to: NullWritingEncoder(base: encoder, settings: settings))
    }

    /// A date's text, when `value` is a date and the settings say how to write one.
    static func dateText<T: Encodable>(_ value: T, _ settings: NullWritingSettings) -> String? {
        guard T.self == Date.self, let datesAs = settings.datesAs, let date = value as? Date else { return nil }
        return datesAs(date)
    }

    /// Whether `value` goes to the encoder as it is: a string or a number (which has no members, and reaches a generic
    /// `encode` as an array's element or an optional's value), a date, data, a URL or a decimal (so that the
    /// encoder's own strategies for them apply), or a raw-value enum (which has no members to write as null).
    /// Decided by the type, which costs less than a cast of the value; the commonest types are compared first.
    static func isEncoderLeaf<T: Encodable>(_ value: T) -> Bool {
        T.self == String.self || T.self == Int.self || T.self == Int64.self || T.self == Bool.self
            || T.self == Double.self || T.self == Date.self || T.self == Data.self || T.self == URL.self
            || T.self == Decimal.self || T.self is any RawRepresentable.Type
    }
}

/// How ``AbsentAsNull`` writes: its dates, and which absent members become null.
struct NullWritingSettings {
    /// How dates are written, when not by the encoder's date strategy.
    let datesAs: (@Sendable (Date) -> String)?
    /// The names of the members written as null when absent; nil for every member.
    let nullMembers: Set<String>?

    /// Whether the absent member `key` is written as null (else it is left out).
    func writesNull(_ key: some CodingKey) -> Bool {
        nullMembers?.contains(key.stringValue) ?? true
    }
}

/// An encoder that hands everything to `base`, writing `null` where a member would be left out.
private struct NullWritingEncoder: Encoder {
    let base: any Encoder
    let settings: NullWritingSettings
    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(NullWritingKeyedContainer(base: base.container(keyedBy: type), settings: settings))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        NullWritingUnkeyedContainer(base: base.unkeyedContainer(), settings: settings)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        NullWritingSingleValueContainer(base: base.singleValueContainer(), settings: settings)
    }
}

/// A keyed container whose `encodeIfPresent` writes `null` for nil; nested values are encoded the same way.
private struct NullWritingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var base: KeyedEncodingContainer<Key>
    let settings: NullWritingSettings
    var codingPath: [any CodingKey] { base.codingPath }

    mutating func encodeNil(forKey key: Key) throws { try base.encodeNil(forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try base.encode(value, forKey: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let text = AbsentAsNull<T>.dateText(value, settings) {
            try base.encode(text, forKey: key)
        } else if AbsentAsNull<T>.isEncoderLeaf(value) {
            try base.encode(value, forKey: key)
        } else {
            try base.encode(AbsentAsNull(value, settings: settings), forKey: key)
        }
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try base.encode(value, forKey: key) } else { try absent(key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try encodeOrNull(value, key) }

    /// Writes null for the absent member `key`, or leaves it out when the settings say so.
    private mutating func absent(_ key: Key) throws {
        if settings.writesNull(key) { try base.encodeNil(forKey: key) }
    }

    private mutating func encodeOrNull<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try absent(key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(
            NullWritingKeyedContainer<NestedKey>(
                base: base.nestedContainer(keyedBy: keyType, forKey: key), settings: settings))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NullWritingUnkeyedContainer(base: base.nestedUnkeyedContainer(forKey: key), settings: settings)
    }

    mutating func superEncoder() -> any Encoder { NullWritingEncoder(base: base.superEncoder(), settings: settings) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NullWritingEncoder(base: base.superEncoder(forKey: key), settings: settings)
    }
}

/// An unkeyed container whose elements are encoded with absent members as `null`.
private struct NullWritingUnkeyedContainer: UnkeyedEncodingContainer {
    var base: any UnkeyedEncodingContainer
    let settings: NullWritingSettings
    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int { base.count }

    mutating func encodeNil() throws { try base.encodeNil() }
    mutating func encode(_ value: Bool) throws { try base.encode(value) }
    mutating func encode(_ value: String) throws { try base.encode(value) }
    mutating func encode(_ value: Double) throws { try base.encode(value) }
    mutating func encode(_ value: Float) throws { try base.encode(value) }
    mutating func encode(_ value: Int) throws { try base.encode(value) }
    mutating func encode(_ value: Int8) throws { try base.encode(value) }
    mutating func encode(_ value: Int16) throws { try base.encode(value) }
    mutating func encode(_ value: Int32) throws { try base.encode(value) }
    mutating func encode(_ value: Int64) throws { try base.encode(value) }
    mutating func encode(_ value: UInt) throws { try base.encode(value) }
    mutating func encode(_ value: UInt8) throws { try base.encode(value) }
    mutating func encode(_ value: UInt16) throws { try base.encode(value) }
    mutating func encode(_ value: UInt32) throws { try base.encode(value) }
    mutating func encode(_ value: UInt64) throws { try base.encode(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let text = AbsentAsNull<T>.dateText(value, settings) {
            try base.encode(text)
        } else if AbsentAsNull<T>.isEncoderLeaf(value) {
            try base.encode(value)
        } else {
            try base.encode(AbsentAsNull(value, settings: settings))
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(
            NullWritingKeyedContainer<NestedKey>(base: base.nestedContainer(keyedBy: keyType), settings: settings))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NullWritingUnkeyedContainer(base: base.nestedUnkeyedContainer(), settings: settings)
    }

    mutating func superEncoder() -> any Encoder { NullWritingEncoder(base: base.superEncoder(), settings: settings) }
}

/// A single-value container whose value is encoded with absent members as `null`.
private struct NullWritingSingleValueContainer: SingleValueEncodingContainer {
    var base: any SingleValueEncodingContainer
    let settings: NullWritingSettings
    var codingPath: [any CodingKey] { base.codingPath }

    mutating func encodeNil() throws { try base.encodeNil() }
    mutating func encode(_ value: Bool) throws { try base.encode(value) }
    mutating func encode(_ value: String) throws { try base.encode(value) }
    mutating func encode(_ value: Double) throws { try base.encode(value) }
    mutating func encode(_ value: Float) throws { try base.encode(value) }
    mutating func encode(_ value: Int) throws { try base.encode(value) }
    mutating func encode(_ value: Int8) throws { try base.encode(value) }
    mutating func encode(_ value: Int16) throws { try base.encode(value) }
    mutating func encode(_ value: Int32) throws { try base.encode(value) }
    mutating func encode(_ value: Int64) throws { try base.encode(value) }
    mutating func encode(_ value: UInt) throws { try base.encode(value) }
    mutating func encode(_ value: UInt8) throws { try base.encode(value) }
    mutating func encode(_ value: UInt16) throws { try base.encode(value) }
    mutating func encode(_ value: UInt32) throws { try base.encode(value) }
    mutating func encode(_ value: UInt64) throws { try base.encode(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let text = AbsentAsNull<T>.dateText(value, settings) {
            try base.encode(text)
        } else if AbsentAsNull<T>.isEncoderLeaf(value) {
            try base.encode(value)
        } else {
            try base.encode(AbsentAsNull(value, settings: settings))
        }
    }
}
