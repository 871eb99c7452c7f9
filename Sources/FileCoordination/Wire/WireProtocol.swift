/// The constants of Quire's wire protocol between a shared arbiter host and its clients.
///
/// A frame is `[u32 little-endian length][u8 frame type][payload]`, the length counting the type byte and the
/// payload. Integers are little-endian, strings a `u32` byte count and UTF-8, paths a `u16` component count and
/// strings, optionals a `u8` 0/1 and the value, arrays a `u32` count and the elements. ``WireFrameType`` lists the
/// frames and ``WireFrame`` their payloads.
enum WireProtocol {
    /// The newest protocol version this code speaks, offered in
    /// ``WireFrame/hello(version:pid:commandLine:lowestVersion:)``.
    ///
    /// The layouts of `welcome` and `refused` never change across versions, and `hello` only gains trailing
    /// fields, so that peers of different versions can always negotiate or refuse each other politely (see
    /// ``VersionNegotiation``).
    ///
    /// Version 2: `grant` carries `reportsPresence` and `accessEnded` the items' presence.
    /// Version 3: `versionsChanged` frames, and the two version notices among the delivered messages.
    /// Version 4: the `handOverBoard` frame after `welcome`; an access handed over on the board
    /// (``HandOverBoard``) ends without an `accessEnded` frame.
    /// Version 5: the `packageExtensions` frame after `welcome`.
    static let version: UInt16 = 5

    /// The oldest protocol version this code speaks: a connection agreed at it leaves out what later versions
    /// added (``VersionNegotiation/carries(_:at:)``).
    static let oldestVersion: UInt16 = 2

    /// The version that added the `versionsChanged` frame and the version notices among delivered messages.
    static let versionNoticesVersion: UInt16 = 3

    /// The version of the builds from before negotiation, which a `hello` of the old layout names.
    static let preNegotiationVersion: UInt16 = 3

    /// The version that added the hand-over board.
    static let handOverVersion: UInt16 = 4

    /// The version that added the `packageExtensions` frame.
    static let packageExtensionsVersion: UInt16 = 5

    /// The most file-package extensions a `packageExtensions` frame names, and the longest one, in bytes.
    static let maximumPackageExtensions = 256
    static let maximumPackageExtensionLength = 255

    /// The largest encoded version a version notice carries, 64 KiB (a version's description is a few hundred
    /// bytes); a larger one is an error.
    static let maximumVersionLength = 64 << 10

    /// The largest value of the length field (type byte plus payload), 16 MiB; a larger frame is an error.
    static let maximumFrameLength = 16 << 20

    /// The size of the length field that starts every frame.
    static let lengthFieldSize = 4
}
