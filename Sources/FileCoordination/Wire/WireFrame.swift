import CoordinationArbiter

/// One frame of the wire protocol between a shared arbiter host and a client process.
///
/// The client opens with ``hello(version:pid:commandLine:)``; the host answers ``welcome(version:clientID:)`` or
/// ``refused(reason:)``. After that the client sends the ``ClientEvent`` frames and ``snapshotRequest(tag:)``, and
/// the host sends the ``ClientAction`` frames and ``snapshotResponse(tag:_:)``. The payload layout of each case is
/// given in its documentation; ``WireProtocol`` describes the primitive encodings and ``WireFrameType`` the codes.
enum WireFrame: Hashable, Sendable {
    /// The client's first frame: `u16 version, i32 pid, string commandLine[, u16 lowestVersion]`.
    ///
    /// `version` is the newest protocol version the client speaks; the optional trailing `lowestVersion` (absent
    /// in the hello of a build before negotiation, which speaks `version` only) the oldest (see
    /// ``VersionNegotiation``). `commandLine` is for operators (`quire presenters`), not for authentication: the
    /// host takes the peer's user from the socket (`SO_PEERCRED`).
    case hello(version: UInt16, pid: Int32, commandLine: String, lowestVersion: UInt16? = nil)
    /// The host accepts the client: `u16 version, u64 clientID`; `version` is the one the connection speaks.
    case welcome(version: UInt16, clientID: ClientID)
    /// The host refuses (a `hello` of versions it does not speak, a host shutting down, a snapshot it cannot
    /// send): `string reason`.
    case refused(reason: String)

    /// ``ClientEvent/presenterRegistered(_:purpose:path:observesUncoordinatedChanges:)``:
    /// `u64 presenter, string purpose, optional path, bool observesUncoordinatedChanges`.
    case presenterRegistered(PresenterID, purpose: PurposeID, path: ItemPath?, observesUncoordinatedChanges: Bool)
    /// ``ClientEvent/presenterMoved(_:path:)``: `u64 presenter, optional path`.
    case presenterMoved(PresenterID, path: ItemPath?)
    /// ``ClientEvent/presenterRemoved(_:)``: `u64 presenter`.
    case presenterRemoved(PresenterID)
    /// ``ClientEvent/accessRequested(_:purpose:intents:deadline:nestedIn:)``, with the deadline as a timeout:
    /// `u64 request, string purpose, [intent], optional u64 timeout, optional u64 nestedIn, bool reclaim, u64 age`.
    ///
    /// `timeout` is in nanoseconds, relative to the moment the host reads the frame, which computes the deadline
    /// on its own clock (`now + timeout`). Absolute `CLOCK_MONOTONIC` instants are comparable between processes
    /// of one machine, except across time namespaces (containers may offset that clock), and a relative timeout
    /// only grows by the frame's transit time. `reclaim` re-declares an access the client already held when the
    /// previous host died, so that the new host restores it during its grace period instead of queueing it.
    /// `age` is how long ago, in nanoseconds, the client first asked (0 for a new request): a new host queues
    /// the requests re-submitted after a hand-over by their first arrival, so none overtakes another.
    case accessRequested(
        RequestID, purpose: PurposeID, intents: [AccessIntent], timeout: UInt64?, nestedIn: RequestID?, reclaim: Bool,
        age: UInt64 = 0)
    /// ``ClientEvent/accessEnded(_:presence:)``: `u64 request, [u8 presence]`, one presence per intent or none:
    /// 0 not looked at, else 1 plus 2 if the item existed before the accessor and 4 if it exists after.
    case accessEnded(RequestID, presence: [ItemPresence?] = [])
    /// ``ClientEvent/itemMoved(_:from:to:)``: `u64 request, path from, path to`.
    case itemMoved(RequestID, from: ItemPath, to: ItemPath)
    /// ``ClientEvent/cancelRequested(_:)``: `u64 request`.
    case cancelRequested(RequestID)
    /// ``ClientEvent/presenterReplied(_:failure:)``: `u64 message, optional failure`.
    ///
    /// A failure travels as `string domain, i64 code, string message`; its ``PresenterFailure/encoded`` bytes
    /// must be exactly that encoding (``RemotePresenterError/presenterFailure`` makes them).
    case presenterReplied(MessageID, failure: PresenterFailure?)
    /// Asks for a snapshot of the arbiter: `u64 tag`, repeated in the answer.
    case snapshotRequest(tag: UInt64)
    /// Sent by a client that reconnected after its host died, once it has registered its presenters and
    /// re-declared its accesses again: no payload. The new host grants nothing new until every client of the
    /// old host has sent it (or the grace period is over).
    case redeclared
    /// ``ClientEvent/itemVersionsChanged(_:_:)``: `path, version notice` (a notice is `u8 change` (0 gained, 1 lost,
    /// 2 resolved), `u32` count and at most ``WireProtocol/maximumVersionLength`` bytes of encoded version).
    case versionsChanged(ItemPath, VersionNotice)
    /// Version 5, the client's first frame after `welcome` when its process has file-package extensions
    /// (``FileCoordinator/filePackageExtensions``): `[string] extensions`, lowercase, without the dot, at most
    /// ``WireProtocol/maximumPackageExtensions``. The host makes them packages for every client
    /// (`Arbiter.packageExtensionsDeclared(_:by:)`).
    case packageExtensions([String])

    /// ``ClientAction/grant(_:paths:reportsPresence:)``: `u64 request, [path], bool reportsPresence`.
    case grant(RequestID, paths: [ItemPath], reportsPresence: Bool = false)
    /// ``ClientAction/fail(_:_:)``: `u64 request, u8 failure tag (0 cancelled, 1 timedOut + path,
    /// 2 presenterFailed + string domain, i64 code, string message)`.
    case fail(RequestID, AccessFailure)
    /// ``ClientAction/deliver(_:)``: `u64 client, u64 presenter, u64 message id, message, u64 request`, where the
    /// message is a `u8` tag (the order of ``PresenterMessage``'s cases, from 0) and the case's values.
    case deliver(PresenterDelivery)
    /// The answer to ``snapshotRequest(tag:)``: `u64 tag, snapshot` (see ``WireSnapshot``).
    case snapshotResponse(tag: UInt64, WireSnapshot)
    /// Version 4, after `welcome`: `string name, u64 cell, u32 generation` — the ``HandOverBoard`` file of the
    /// coordination directory, the connection's cell on it and the cell's generation.
    case handOverBoard(name: String, cell: UInt64, generation: UInt32)

    /// The frame's type code.
    var type: WireFrameType {
        switch self {
        case .hello: return .hello
        case .welcome: return .welcome
        case .refused: return .refused
        case .presenterRegistered: return .presenterRegistered
        case .presenterMoved: return .presenterMoved
        case .presenterRemoved: return .presenterRemoved
        case .accessRequested: return .accessRequested
        case .accessEnded: return .accessEnded
        case .itemMoved: return .itemMoved
        case .cancelRequested: return .cancelRequested
        case .presenterReplied: return .presenterReplied
        case .snapshotRequest: return .snapshotRequest
        case .redeclared: return .redeclared
        case .versionsChanged: return .versionsChanged
        case .packageExtensions: return .packageExtensions
        case .grant: return .grant
        case .fail: return .fail
        case .deliver: return .deliver
        case .snapshotResponse: return .snapshotResponse
        case .handOverBoard: return .handOverBoard
        }
    }
}
