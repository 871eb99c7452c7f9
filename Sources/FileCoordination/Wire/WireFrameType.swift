/// The frame type byte that follows a frame's length field.
///
/// Codes are grouped by sender: `0x0_` the handshake, `0x1_` client to host, `0x2_` host to client. A code is
/// never reused for another layout; a new layout gets a new code and a new ``WireProtocol/version``.
enum WireFrameType: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    /// Client to host, first frame of a connection.
    case hello = 0x01
    /// Host to client, the answer to an accepted `hello`.
    case welcome = 0x02
    /// Host to client: the host refuses the connection or a request, then usually closes.
    case refused = 0x03
    /// Client to host: a presenter was registered.
    case presenterRegistered = 0x10
    /// Client to host: a presenter now presents another item (or none).
    case presenterMoved = 0x11
    /// Client to host: a presenter was removed.
    case presenterRemoved = 0x12
    /// Client to host: a coordinated access is requested (or reclaimed after a host hand-over).
    case accessRequested = 0x13
    /// Client to host: a granted access ended.
    case accessEnded = 0x14
    /// Client to host: a request moved an item during its write access.
    case itemMoved = 0x15
    /// Client to host: a request was cancelled.
    case cancelRequested = 0x16
    /// Client to host: a presenter answered a message.
    case presenterReplied = 0x17
    /// Client to host: send a snapshot of presenters and claims.
    case snapshotRequest = 0x18
    /// Client to host, after a reconnection: every presenter and access of the client is declared again.
    case redeclared = 0x19
    /// Client to host: a version of an item was added, removed or resolved.
    case versionsChanged = 0x1A
    /// Client to host, right after `welcome` at version 5: the file-package extensions of the client's process.
    case packageExtensions = 0x1B
    /// Host to client: run a request's accessor.
    case grant = 0x20
    /// Host to client: a request failed.
    case fail = 0x21
    /// Host to client: deliver a message to one of the client's presenters.
    case deliver = 0x22
    /// Host to client: the snapshot asked for by a `snapshotRequest`.
    case snapshotResponse = 0x23
    /// Host to client, right after `welcome` at version 4: the hand-over board to use and the connection's cell.
    case handOverBoard = 0x24

    /// The case name and its code, for example `accessRequested(0x13)`.
    var description: String {
        let hex = String(rawValue, radix: 16)
        let name: String
        switch self {
        case .hello: name = "hello"
        case .welcome: name = "welcome"
        case .refused: name = "refused"
        case .presenterRegistered: name = "presenterRegistered"
        case .presenterMoved: name = "presenterMoved"
        case .presenterRemoved: name = "presenterRemoved"
        case .accessRequested: name = "accessRequested"
        case .accessEnded: name = "accessEnded"
        case .itemMoved: name = "itemMoved"
        case .cancelRequested: name = "cancelRequested"
        case .presenterReplied: name = "presenterReplied"
        case .snapshotRequest: name = "snapshotRequest"
        case .redeclared: name = "redeclared"
        case .versionsChanged: name = "versionsChanged"
        case .packageExtensions: name = "packageExtensions"
        case .grant: name = "grant"
        case .fail: name = "fail"
        case .deliver: name = "deliver"
        case .snapshotResponse: name = "snapshotResponse"
        case .handOverBoard: name = "handOverBoard"
        }
        return "\(name)(0x\(hex.count < 2 ? "0" + hex : hex))"
    }
}
