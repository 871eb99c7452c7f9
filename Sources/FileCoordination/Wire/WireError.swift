/// Why bytes from a peer are not a valid frame, or why a frame cannot be encoded.
///
/// Every decoding error means the peer is broken or hostile: drop the connection (a host then releases
/// everything the client held). ``WireDecoder`` stays failed after an error.
enum WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The length field announces more than ``WireProtocol/maximumFrameLength`` bytes (or an encoded frame would
    /// be larger). The bytes are never buffered or allocated.
    case frameTooLarge(length: Int)
    /// The type byte names no ``WireFrameType``.
    case unknownFrameType(UInt8)
    /// The frame ends before its payload does (nil type: an empty frame, without even a type byte).
    case truncatedPayload(WireFrameType?)
    /// A string in the frame is not valid UTF-8.
    case invalidUTF8(WireFrameType)
    /// A tag byte of `field` (an enum, an optional or a bool) has no meaning.
    case badEnumTag(WireFrameType, field: String, tag: UInt8)
    /// The payload is complete `count` bytes before the frame ends.
    case trailingBytes(WireFrameType, count: Int)
    /// A path has an empty component, a component containing `/` or more than 65,535 components, or an intent's
    /// package root depths are not ascending within its path.
    case invalidPath(WireFrameType)
    /// A version notice carries more than ``WireProtocol/maximumVersionLength`` bytes of encoded version.
    case versionTooLarge(WireFrameType, count: Int)
    /// A `packageExtensions` frame names more than ``WireProtocol/maximumPackageExtensions`` extensions, an empty
    /// one, or one longer than ``WireProtocol/maximumPackageExtensionLength`` bytes.
    case invalidPackageExtensions(count: Int)

    /// What is wrong and what to do about it.
    var description: String {
        switch self {
        case .frameTooLarge(let length):
            return "wire frame of \(length) bytes exceeds the limit of \(WireProtocol.maximumFrameLength) bytes; "
                + "the peer is not speaking Quire's coordination protocol, or sent a snapshot too large to send"
        case .unknownFrameType(let type):
            return "wire frame has unknown type 0x\(String(type, radix: 16)); the peer speaks another protocol "
                + "version or is not a Quire process: drop the connection"
        case .truncatedPayload(let type?):
            return "wire frame \(type) ends before its payload; the peer sent a malformed frame: drop the connection"
        case .truncatedPayload(nil):
            return "wire frame is empty (no type byte); the peer sent a malformed frame: drop the connection"
        case .invalidUTF8(let type):
            return "wire frame \(type) contains a string that is not valid UTF-8: drop the connection"
        case .badEnumTag(let type, let field, let tag):
            return "wire frame \(type) has invalid tag \(tag) for \(field): drop the connection"
        case .trailingBytes(let type, let count):
            return "wire frame \(type) has \(count) bytes after its payload; the peer speaks another protocol "
                + "version or sent a malformed frame: drop the connection"
        case .invalidPath(let type):
            return "wire frame \(type) has a path with an empty component, a component containing '/' or more than "
                + "65535 components, or package depths outside the path: drop the connection"
        case .versionTooLarge(let type, let count):
            return "wire frame \(type) carries a version notice of \(count) bytes, over the limit of "
                + "\(WireProtocol.maximumVersionLength): the peer is broken or hostile, drop the connection"
        case .invalidPackageExtensions(let count):
            return "wire frame packageExtensions names \(count) extensions, an empty one or one over "
                + "\(WireProtocol.maximumPackageExtensionLength) bytes "
                + "(at most \(WireProtocol.maximumPackageExtensions)): "
                + "the peer is broken or hostile, drop the connection"
        }
    }
}
