import CoordinationArbiter

/// The protocol's composite values, in the layouts that ``WireReader`` reads back.
extension WireSink {
    /// Adds a path as `u16` component count and the components as strings.
    mutating func write(_ path: ItemPath) throws(Failure) {
        try writeComponentCount(path.components.count)
        for component in path.components { try writeComponent(component) }
    }

    /// Adds an intent: path, `u8` access (0 reading, 1 writing), `u64` options, `bool` includesContents,
    /// `[u16]` package root depths.
    mutating func write(_ intent: AccessIntent) throws(Failure) {
        try write(intent.path)
        switch intent.access {
        case .reading(let options):
            write(UInt8(0))
            write(UInt64(options.rawValue))
        case .writing(let options):
            write(UInt8(1))
            write(UInt64(options.rawValue))
        }
        write(intent.includesContents)
        // AccessIntent keeps its depths within 1...path.depth, and the path has at most UInt16.max components.
        try write(intent.packageRootDepths) { sink, depth in sink.write(UInt16(clamping: depth)) }
    }

    /// Adds a presenter message: `u8` tag (the order of ``PresenterMessage``'s cases) and the case's values.
    mutating func write(_ message: PresenterMessage) throws(Failure) {
        switch message {
        case .relinquishToReader: write(UInt8(0))
        case .relinquishToWriter: write(UInt8(1))
        case .savePresentedItemChanges: write(UInt8(2))
        case .accommodateDeletion: write(UInt8(3))
        case .accommodateSubitemDeletion(let path):
            write(UInt8(4))
            try write(path)
        case .didChange: write(UInt8(5))
        case .didMove(let path):
            write(UInt8(6))
            try write(path)
        case .subitemDidChange(let path):
            write(UInt8(7))
            try write(path)
        case .subitemDidAppear(let path):
            write(UInt8(8))
            try write(path)
        case .subitemDidMove(let from, let to):
            write(UInt8(9))
            try write(from)
            try write(to)
        case .reacquire(let relinquishMessage):
            write(UInt8(10))
            write(relinquishMessage.rawValue)
        case .versionsChanged(let notice):
            write(UInt8(11))
            try write(notice)
        case .subitemVersionsChanged(let path, let notice):
            write(UInt8(12))
            try write(path)
            try write(notice)
        }
    }

    /// Adds a version notice: `u8` change (0 gained, 1 lost, 2 resolved), then the encoded version as `u32`
    /// count and bytes.
    mutating func write(_ notice: VersionNotice) throws(Failure) {
        write(notice.change.rawValue)
        try writeVersion(notice.version)
    }

    /// Adds what a writer saw of an item as `u8`: 0 not looked at, else 1 plus 2 if it existed before the
    /// accessor and 4 if it exists after.
    mutating func write(_ presence: ItemPresence?) {
        guard let presence else { return write(UInt8(0)) }
        write(UInt8(1 | (presence.existedBefore ? 2 : 0) | (presence.existsAfter ? 4 : 0)))
    }

    /// Adds a request's failure: `u8` tag (0 cancelled, 1 timedOut, 2 presenterFailed) and the case's values.
    mutating func write(_ failure: AccessFailure) throws(Failure) {
        switch failure {
        case .cancelled:
            write(UInt8(0))
        case .timedOut(let path):
            write(UInt8(1))
            try write(path)
        case .presenterFailed(let presenterFailure):
            write(UInt8(2))
            try writeEncoded(presenterFailure)
        }
    }

    /// Adds a presenter's error: `string domain, i64 code, string message`.
    mutating func write(_ error: RemotePresenterError) throws(Failure) {
        try writeString(error.domain)
        write(error.code)
        try writeString(error.message)
    }

    /// Adds a delivery: `u64 client, u64 presenter, u64 id, message, u64 request`.
    mutating func write(_ delivery: PresenterDelivery) throws(Failure) {
        write(delivery.client.rawValue)
        write(delivery.presenter.rawValue)
        write(delivery.id.rawValue)
        try write(delivery.message)
        write(delivery.request.rawValue)
    }

    /// Adds a snapshot: `[presenter]`, then `[path, [holder claim], [waiter claim]]`.
    ///
    /// A presenter is `u64 client, i32 pid, u64 presenter, string purpose, optional path, bool
    /// observesUncoordinatedChanges`; a claim is `u64 request, u64 client, i32 pid, string purpose, intent,
    /// u64 requestedAt, phase (u8 0 waiting, 1 askingPresenters + [u64 message], 2 granted), [u64 blockedBy]`.
    mutating func write(_ snapshot: WireSnapshot) throws(Failure) {
        try write(snapshot.presenters) { sink, presenter throws(Failure) in
            sink.write(presenter.client.rawValue)
            sink.write(presenter.pid)
            sink.write(presenter.presenter.rawValue)
            try sink.writeString(presenter.purpose.rawValue)
            try sink.write(presenter.path) { sink, path throws(Failure) in try sink.write(path) }
            sink.write(presenter.observesUncoordinatedChanges)
        }
        try write(snapshot.claims) { sink, pathClaims throws(Failure) in
            try sink.write(pathClaims.path)
            try sink.write(pathClaims.holders) { sink, claim throws(Failure) in try sink.write(claim) }
            try sink.write(pathClaims.waiters) { sink, claim throws(Failure) in try sink.write(claim) }
        }
    }

    /// Adds one claim of a snapshot (layout in the snapshot's `write`).
    private mutating func write(_ claim: WireSnapshot.Claim) throws(Failure) {
        write(claim.request.rawValue)
        write(claim.client.rawValue)
        write(claim.pid)
        try writeString(claim.purpose.rawValue)
        try write(claim.intent)
        write(claim.requestedAt.nanoseconds)
        switch claim.phase {
        case .waiting:
            write(UInt8(0))
        case .askingPresenters(let messages):
            write(UInt8(1))
            try write(messages) { sink, message in sink.write(message.rawValue) }
        case .granted:
            write(UInt8(2))
        }
        try write(claim.blockedBy) { sink, request in sink.write(request.rawValue) }
    }
}
