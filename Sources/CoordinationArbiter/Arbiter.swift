/// The file-coordination arbiter: a pure state machine that decides who may access which item when.
///
/// Feed it events (each a `mutating` method named for what happened) and perform the actions it returns, in
/// order. It does no I/O, reads no clock, holds no lock and never traps on input: an event that cannot happen
/// for a well-behaved client becomes ``ArbiterAction/failClient(_:_:)`` (and changes nothing), an event that
/// can merely arrive late (a reply after a cancel, a timer after a grant) is ignored. A host keeps one
/// arbiter behind one lock, feeds an event, releases the lock, then performs the actions.
///
/// ## Who waits for whom
/// Two requests conflict when their purposes differ and some pair of their intents conflicts. An intent
/// claims its path, or the outermost file package enclosing it. Two claims conflict when
/// - they claim the same path and at least one of them writes (readers share);
/// - one claims a directory with a write that excludes contents (`.forDeleting`, `.forMoving`,
///   `.forReplacing`) and the other claims anything inside it. A plain write of a directory and any read of
///   it leave its contents alone. Apple names only `.forDeleting` and `.forMoving` for the parent-directory
///   rule; `.forReplacing` is treated the same, as Apple's `.forReplacing` behaves as `.forDeleting`.
///
/// A granted request that moves an item (``itemMoved(_:from:at:to:)``) also claims the item's new place until
/// its access ends, so that requests waiting for the item, which follow it, keep waiting.
///
/// A request is granted, atomically for all its intents, when no conflicting request is granted and no
/// conflicting request arrived before it and is still waiting: FIFO per path, and a waiting writer bars
/// readers that arrive after it. A request waits in every queue its intents touch, so there is no
/// acquisition order and no deadlock between multi-intent requests. Two exceptions keep the caller's own
/// work from deadlocking against itself:
/// - *Nested requests* (`nestedIn:` names a granted request of the same purpose) wait only for granted
///   requests, never for waiting ones: a coordinated read inside a write accessor does not queue behind a
///   writer that waits for the outer access.
/// - *Presenters that coordinate in their handlers*: while a request waits for a reply from a presenter of
///   purpose P, it does not block requests of purpose P (Apple gives the presenter's own write priority over
///   the read that asked it to save).
///
/// ## Presenter rounds
/// When a request could be granted, it first messages every presenter of the affected items whose purpose
/// differs from its own (see ``PresenterRound``) and waits for their replies. An error reply fails the
/// request; the presenters already asked to relinquish get ``PresenterMessage/reacquire(relinquishMessage:)``.
/// After ``accessEnded(_:from:presence:)`` (see ``sendChangeNotifications(after:presence:_:)``): the item's
/// presenters get `didChange` for plain, `.forMerging` and `.contentIndependentMetadataOnly` writes, and the
/// presenters of every enclosing directory hear of every write but a move (`subitemDidAppear` for an item
/// that was created, `subitemDidChange` otherwise); then every presenter that relinquished gets its reacquire.
/// Moves report themselves through ``itemMoved(_:from:at:to:)``.
public struct Arbiter: Sendable {
    /// Active requests by id.
    var requests: [RequestID: AccessRequest] = [:]
    /// Registered presenters by id.
    var presenters: [PresenterID: PresenterRecord] = [:]
    /// Claims and presenters by path.
    var table = ClaimTable()
    /// Messages whose replies are awaited.
    var pendingReplies: [MessageID: PendingReply] = [:]
    /// The claims granted requests gained where the items they moved went (see ``itemMoved(_:from:at:to:)``),
    /// filed under intent indices `intents.count...` and released with the intents' claims. Kept apart from
    /// the requests so that the common request, which moves nothing, carries nothing for it.
    var movedClaims: [RequestID: [AccessRequest.ClaimedIntent]] = [:]
    /// The paths granted requests moved items from and to; their end reports no change there (the move was
    /// reported). Kept apart from the requests, as ``movedClaims``.
    var movedPaths: [RequestID: [ItemPath]] = [:]
    /// The next arrival / registration number.
    var nextSequence: UInt64 = 1
    /// The next message number; every smaller one has been issued.
    var nextMessage: UInt64 = 1
    /// The file-package extensions each connected client declared (``packageExtensionsDeclared(_:by:)``).
    var declaredPackageExtensions: [ClientID: Set<String>] = [:]
    /// Their union: a directory with one of these extensions is a package for every client's requests.
    var agreedPackageExtensions: Set<String> = []

    /// An arbiter with no presenters and no requests.
    public init() {}

    /// A client asks for coordinated access to the items of `intents`, all at once.
    ///
    /// - Parameters:
    ///   - request: a new id, unique among active requests.
    ///   - client: the asking client.
    ///   - purpose: the coordinator's purpose (see ``PurposeID``).
    ///   - intents: the items, in the order the grant reports their paths. An empty list is granted at once.
    ///   - deadline: when to give up (``AccessFailure/timedOut(_:)``); nil waits forever. A deadline that has
    ///     already passed fails the request unless it is granted within this event.
    ///   - nestedIn: the granted request of the same coordinator whose accessor makes this call, if any.
    ///     It may only name a request of the same client and purpose; if that request is gone or not granted,
    ///     the new request is treated as not nested.
    ///   - now: the current time, recorded for the claims snapshot.
    public mutating func accessRequested(
        _ request: RequestID, client: ClientID, purpose: PurposeID, intents: [AccessIntent],
        deadline: Instant? = nil, nestedIn: RequestID? = nil, now: Instant
    ) -> [ArbiterAction] {
        if requests[request] != nil { return [.failClient(client, .duplicateRequest(request))] }
        let agreed = agreedPackageExtensions
        let intents = agreed.isEmpty ? intents : intents.map { $0.withPackages(agreed) }
        if let outer = nestedIn.flatMap({ requests[$0] }) {
            if outer.client != client { return [.failClient(client, .requestOfAnotherClient(outer.id))] }
            if outer.purpose != purpose { return [.failClient(client, .nestedInForeignRequest(outer.id))] }
        }
        let sequence = nextSequence
        nextSequence += 1
        var claimed: [AccessRequest.ClaimedIntent] = []
        claimed.reserveCapacity(intents.count)
        for (index, intent) in intents.enumerated() {
            let node = table.makeNode(at: intent.claimedPath)
            table.addClaim(claimEntry(request, index, sequence, purpose, intent), at: node)
            claimed.append(AccessRequest.ClaimedIntent(intent: intent, node: node))
        }
        var new = AccessRequest(
            id: request, client: client, purpose: purpose, sequence: sequence, requestedAt: now,
            deadline: deadline, nestedIn: nestedIn, intents: claimed, state: .queued)
        // Fast path: nothing blocks it and no presenter must be asked.
        if blocker(of: new) == nil && planRound(for: new).isEmpty {
            new.state = .granted
            requests[request] = new
            return [.grant(request, client, paths: intents.map(\.path), reportsPresence: wantsPresence(of: new))]
        }
        requests[request] = new

        var outcome = EventOutcome()
        outcome.recheck.append(request)
        settle(&outcome)
        if let waiting = requests[request], !waiting.isGranted, let deadline {
            if deadline <= now {
                abandon(request, failure: .timedOut(blockedPath(of: waiting)), &outcome)
                settle(&outcome)
            } else {
                requests[request]?.timerArmed = true
                outcome.actions.append(.startTimer(request, deadline: deadline))
            }
        }
        return outcome.actions
    }

    /// The accessor of a granted request returned: release its claims, notify presenters, reacquire.
    ///
    /// `presence` has one entry per intent (nil for one not looked at), or is empty: what the client saw of
    /// the written items when the grant asked for it (``ArbiterAction/grant(_:_:paths:reportsPresence:)``).
    /// Entries past the intents are ignored. Ignored for an unknown request;
    /// ``ProtocolViolation/accessEndedBeforeGrant(_:)`` for one not granted.
    public mutating func accessEnded(
        _ request: RequestID, from client: ClientID, presence: [ItemPresence?] = []
    ) -> [ArbiterAction] {
        guard let active = requests[request] else { return [] }
        guard active.client == client else { return [.failClient(client, .requestOfAnotherClient(request))] }
        guard active.isGranted else { return [.failClient(client, .accessEndedBeforeGrant(request))] }
        var outcome = EventOutcome()
        finishAccess(request, presence: presence, &outcome)
        settle(&outcome)
        return outcome.actions
    }

    /// The coordinator was cancelled: a waiting request fails with ``AccessFailure/cancelled``.
    ///
    /// Messages already sent are not recalled, but their replies are no longer awaited; presenters asked to
    /// relinquish get their reacquire. A granted request is not affected (its accessor runs to the end), and
    /// an unknown one is ignored (the cancel raced with its end).
    public mutating func cancelRequested(_ request: RequestID, from client: ClientID) -> [ArbiterAction] {
        guard let active = requests[request] else { return [] }
        guard active.client == client else { return [.failClient(client, .requestOfAnotherClient(request))] }
        guard !active.isGranted else { return [] }
        var outcome = EventOutcome()
        abandon(request, failure: .cancelled, &outcome)
        settle(&outcome)
        return outcome.actions
    }

    /// The request's timer fired: if it is still not granted, it fails with ``AccessFailure/timedOut(_:)``.
    ///
    /// A firing for an unknown or granted request is ignored; an early one (`now` before the deadline) asks
    /// for the timer again.
    public mutating func deadlineReached(_ request: RequestID, now: Instant) -> [ArbiterAction] {
        guard let active = requests[request], !active.isGranted, let deadline = active.deadline else { return [] }
        guard deadline <= now else {
            requests[request]?.timerArmed = true
            return [.startTimer(request, deadline: deadline)]
        }
        requests[request]?.timerArmed = false
        var outcome = EventOutcome()
        abandon(request, failure: .timedOut(blockedPath(of: active)), &outcome)
        settle(&outcome)
        return outcome.actions
    }

    /// The claim table entry of one intent.
    func claimEntry(
        _ request: RequestID, _ index: Int, _ sequence: UInt64, _ purpose: PurposeID, _ intent: AccessIntent
    ) -> ClaimEntry {
        ClaimEntry(
            request: request, intentIndex: index, sequence: sequence, purpose: purpose, isWrite: intent.isWrite,
            excludesContents: intent.excludesContents)
    }
}
