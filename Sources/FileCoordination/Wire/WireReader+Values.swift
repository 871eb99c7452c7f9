import CoordinationArbiter

/// The protocol's composite values, read in the layouts that `WireSink+Values.swift` writes and documents.
extension WireReader {
    /// The fewest bytes a path component takes: a `u32` length and one byte.
    private static let minimumComponentSize = 5

    /// Reads a path: `u16` component count and the components, none empty or containing `/`.
    mutating func readPath() throws(WireError) -> ItemPath {
        let count = Int(try read(UInt16.self))
        guard count <= remainingCount / Self.minimumComponentSize else { throw .truncatedPayload(frameType) }
        var components: [String] = []
        components.reserveCapacity(count)
        for _ in 0..<count { components.append(try readPathComponent()) }
        return ItemPath(components: components)
    }

    /// Reads an optional path.
    mutating func readOptionalPath() throws(WireError) -> ItemPath? {
        try readOptional("Optional<ItemPath>") { reader throws(WireError) in try reader.readPath() }
    }

    /// Reads an intent: path, `u8` access, `u64` options, `bool` includesContents, `[u16]` package root depths
    /// (ascending, each in `1...path.depth`).
    mutating func readIntent() throws(WireError) -> AccessIntent {
        let path = try readPath()
        let access: AccessIntent.Access
        switch try readTag() {
        case 0: access = .reading(.init(rawValue: UInt(truncatingIfNeeded: try read(UInt64.self))))
        case 1: access = .writing(.init(rawValue: UInt(truncatingIfNeeded: try read(UInt64.self))))
        case let tag: throw badTag("AccessIntent.Access", tag)
        }
        let includesContents = try readBool("AccessIntent.includesContents")
        // Encoders send AccessIntent's normalized depths (ascending, within the path), which also bounds their count.
        let depthCount = try readCount(minimumElementSize: 2)
        guard depthCount <= path.depth else { throw .invalidPath(frameType) }
        var depths: [Int] = []
        depths.reserveCapacity(depthCount)
        for _ in 0..<depthCount {
            let depth = Int(try read(UInt16.self))
            guard depth > (depths.last ?? 0), depth <= path.depth else { throw .invalidPath(frameType) }
            depths.append(depth)
        }
        return AccessIntent(
            path: path, access: access, packageRootDepths: depths, includesContents: includesContents)
    }

    /// Reads a presenter message: `u8` tag and the case's values.
    mutating func readPresenterMessage() throws(WireError) -> PresenterMessage {
        switch try readTag() {
        case 0: return .relinquishToReader
        case 1: return .relinquishToWriter
        case 2: return .savePresentedItemChanges
        case 3: return .accommodateDeletion
        case 4: return .accommodateSubitemDeletion(try readPath())
        case 5: return .didChange
        case 6: return .didMove(try readPath())
        case 7: return .subitemDidChange(try readPath())
        case 8: return .subitemDidAppear(try readPath())
        case 9: return .subitemDidMove(from: try readPath(), to: try readPath())
        case 10: return .reacquire(relinquishMessage: MessageID(try read(UInt64.self)))
        case 11: return .versionsChanged(try readVersionNotice())
        case 12:
            let path = try readPath()
            return .subitemVersionsChanged(path, try readVersionNotice())
        case let tag: throw badTag("PresenterMessage", tag)
        }
    }

    /// Reads a version notice: `u8` change, `u32` count and at most ``WireProtocol/maximumVersionLength`` bytes.
    mutating func readVersionNotice() throws(WireError) -> VersionNotice {
        let tag = try readTag()
        guard let change = VersionNotice.Change(rawValue: tag) else { throw badTag("VersionNotice.Change", tag) }
        let count = Int(try read(UInt32.self))
        guard count <= WireProtocol.maximumVersionLength else { throw .versionTooLarge(frameType, count: count) }
        return VersionNotice(change, version: Array(try readBytes(count: count)))
    }

    /// Reads a presenter's error: `string domain, i64 code, string message`.
    mutating func readRemotePresenterError() throws(WireError) -> RemotePresenterError {
        let domain = try readString()
        let code = try read(Int64.self)
        return RemotePresenterError(domain: domain, code: code, message: try readString())
    }

    /// Reads a presenter's error and returns its encoding, validated, as a ``PresenterFailure``.
    mutating func readPresenterFailure() throws(WireError) -> PresenterFailure {
        PresenterFailure(
            encoded: try readEncoding { reader throws(WireError) in _ = try reader.readRemotePresenterError() })
    }

    /// Reads what a writer saw of an item: `u8` 0 (not looked at), or 1 plus 2 (existed before) plus 4 (exists
    /// after).
    mutating func readPresence() throws(WireError) -> ItemPresence? {
        switch try readTag() {
        case 0: return nil
        case let tag where tag & 1 == 1 && tag < 8:
            return ItemPresence(existedBefore: tag & 2 != 0, existsAfter: tag & 4 != 0)
        case let tag: throw badTag("ItemPresence", tag)
        }
    }

    /// Reads a request's failure: `u8` tag and the case's values.
    mutating func readAccessFailure() throws(WireError) -> AccessFailure {
        switch try readTag() {
        case 0: return .cancelled
        case 1: return .timedOut(try readPath())
        case 2: return .presenterFailed(try readPresenterFailure())
        case let tag: throw badTag("AccessFailure", tag)
        }
    }

    /// Reads a delivery: `u64 client, u64 presenter, u64 id, message, u64 request`.
    mutating func readDelivery() throws(WireError) -> PresenterDelivery {
        let client = ClientID(try read(UInt64.self))
        let presenter = PresenterID(try read(UInt64.self))
        let id = MessageID(try read(UInt64.self))
        let message = try readPresenterMessage()
        return PresenterDelivery(
            client: client, presenter: presenter, id: id, message: message, request: RequestID(try read(UInt64.self)))
    }

    /// Reads a snapshot in the layout that `WireSink.write(_ snapshot:)` documents.
    mutating func readSnapshot() throws(WireError) -> WireSnapshot {
        // u64 client, i32 pid, u64 presenter, u32 purpose length, u8 optional tag, u8 bool.
        let presenters = try readArray(minimumElementSize: 26) { reader throws(WireError) in
            let client = ClientID(try reader.read(UInt64.self))
            let pid = try reader.read(Int32.self)
            let presenter = PresenterID(try reader.read(UInt64.self))
            let purpose = PurposeID(try reader.readString())
            let path = try reader.readOptionalPath()
            let observes = try reader.readBool("observesUncoordinatedChanges")
            return WireSnapshot.Presenter(
                presenter: presenter, client: client, pid: pid, purpose: purpose, path: path,
                observesUncoordinatedChanges: observes)
        }
        // u16 path component count, two u32 array counts.
        let claims = try readArray(minimumElementSize: 10) { reader throws(WireError) in
            let path = try reader.readPath()
            let holders = try reader.readClaims()
            return WireSnapshot.PathClaims(path: path, holders: holders, waiters: try reader.readClaims())
        }
        return WireSnapshot(presenters: presenters, claims: claims)
    }

    /// Reads an array of snapshot claims.
    private mutating func readClaims() throws(WireError) -> [WireSnapshot.Claim] {
        // u64 request, u64 client, i32 pid, u32 purpose length, intent (u16, u8, u64, u8, u32), u64 requestedAt,
        // u8 phase, u32 blockedBy count.
        try readArray(minimumElementSize: 53) { reader throws(WireError) in
            let request = RequestID(try reader.read(UInt64.self))
            let client = ClientID(try reader.read(UInt64.self))
            let pid = try reader.read(Int32.self)
            let purpose = PurposeID(try reader.readString())
            let intent = try reader.readIntent()
            let requestedAt = Instant(nanoseconds: try reader.read(UInt64.self))
            let phase: ArbiterSnapshot.Phase
            switch try reader.readTag() {
            case 0: phase = .waiting
            case 1: phase = .askingPresenters(try reader.readIDs(MessageID.init))
            case 2: phase = .granted
            case let tag: throw reader.badTag("ArbiterSnapshot.Phase", tag)
            }
            return WireSnapshot.Claim(
                request: request, client: client, pid: pid, purpose: purpose, intent: intent,
                requestedAt: requestedAt, phase: phase, blockedBy: try reader.readIDs(RequestID.init))
        }
    }

    /// Reads an array of `u64` ids.
    private mutating func readIDs<ID>(_ makeID: (UInt64) -> ID) throws(WireError) -> [ID] {
        try readArray(minimumElementSize: 8) { reader throws(WireError) in makeID(try reader.read(UInt64.self)) }
    }
}
