/// The actions an event produced so far, and the waiting requests it may have unblocked.
struct EventOutcome {
    /// Actions for the host, in order.
    var actions: [ArbiterAction] = []
    /// Requests to check again before the event returns.
    var recheck: [RequestID] = []
}

extension Arbiter {
    /// Moves every request in `outcome.recheck` forward as far as it can go, until nothing changes.
    ///
    /// Candidates are checked in arrival order. Being unblocked depends only on the states of the other
    /// requests, not on the order of checking, so a candidate added later (when a round starts waiting on a
    /// presenter) is simply checked in the next pass.
    mutating func settle(_ outcome: inout EventOutcome) {
        while !outcome.recheck.isEmpty {
            var batch = outcome.recheck.compactMap { requests[$0] }.map { ($0.sequence, $0.id) }
            outcome.recheck.removeAll(keepingCapacity: true)
            batch.sort { $0.0 < $1.0 }
            var previous: UInt64 = 0
            for (sequence, id) in batch where sequence != previous {
                previous = sequence
                guard let request = requests[id] else { continue }
                switch request.state {
                case .queued:
                    if blocker(of: request) == nil { beginRound(id, &outcome) }
                case .readyAfterRound:
                    if blocker(of: request) == nil { grant(id, &outcome) }
                case .consultingPresenters, .granted:
                    continue
                }
            }
        }
    }

    /// The first request that keeps `request` from being granted, with the index of the blocked intent.
    func blocker(of request: AccessRequest) -> (request: RequestID, intentIndex: Int)? {
        let outerHeld = request.nestedIn.map { requests[$0]?.isGranted ?? false } ?? false
        for (index, claimed) in request.intents.enumerated() {
            var found: RequestID?
            forEachConflictingClaim(of: claimed) { entry in
                guard entry.request != request.id, entry.purpose != request.purpose,
                    let other = requests[entry.request],
                    blocks(other, request, outerHeld: outerHeld)
                else { return true }
                found = entry.request
                return false
            }
            if let found { return (found, index) }
        }
        return nil
    }

    /// True if `other`, whose claims conflict with `request`'s, makes `request` wait.
    func blocks(_ other: AccessRequest, _ request: AccessRequest, outerHeld: Bool) -> Bool {
        switch other.state {
        case .granted:
            return true
        case .queued, .readyAfterRound:
            return !outerHeld && other.sequence < request.sequence
        case .consultingPresenters(let round):
            guard !outerHeld, other.sequence < request.sequence else { return false }
            return !round.awaiting.contains { pendingReplies[$0]?.purpose == request.purpose }
        }
    }

    /// Calls `body` with every claim that conflicts with `claimed` by the path rules (purpose not checked),
    /// until `body` returns false.
    func forEachConflictingClaim(of claimed: AccessRequest.ClaimedIntent, _ body: (ClaimEntry) -> Bool) {
        let isWrite = claimed.intent.isWrite
        for entry in table.nodes[claimed.node].claims where isWrite || entry.isWrite {
            guard body(entry) else { return }
        }
        var stopped = false
        table.forEachAncestor(of: claimed.node) { ancestor in
            guard table.nodes[ancestor].contentExcludingClaims > 0 else { return true }
            for entry in table.nodes[ancestor].claims where entry.excludesContents {
                guard body(entry) else {
                    stopped = true
                    return false
                }
            }
            return true
        }
        guard !stopped, claimed.intent.excludesContents, table.nodes[claimed.node].claimsBelow > 0 else { return }
        for entry in table.claims(below: claimed.node) {
            guard body(entry) else { return }
        }
    }

    /// Other active requests of another purpose whose intents' claims conflict with `request`'s, in no order.
    func conflictingRequests(of request: AccessRequest) -> [RequestID] {
        var found: [RequestID] = []
        for claimed in request.intents {
            collectConflicts(of: claimed, for: request, into: &found)
        }
        return found
    }

    /// Calls `body` with each claim `request` holds or waits for: its intents, then its moved claims, each with
    /// the intent index it is filed under in the claim table.
    func forEachClaim(
        of request: AccessRequest, _ body: (_ index: Int, _ claimed: AccessRequest.ClaimedIntent) -> Void
    ) {
        for (index, claimed) in request.intents.enumerated() { body(index, claimed) }
        guard !movedClaims.isEmpty, let moved = movedClaims[request.id] else { return }
        for (offset, claimed) in moved.enumerated() { body(request.intents.count + offset, claimed) }
    }

    /// Adds to `found` the other requests of another purpose with claims that conflict with `claimed`.
    private func collectConflicts(
        of claimed: AccessRequest.ClaimedIntent, for request: AccessRequest, into found: inout [RequestID]
    ) {
        forEachConflictingClaim(of: claimed) { entry in
            if entry.request != request.id && entry.purpose != request.purpose && !found.contains(entry.request) {
                found.append(entry.request)
            }
            return true
        }
    }

    /// The path reported when `request` times out: its first blocked intent, else the item of the first reply
    /// it waits for, else its first intent.
    func blockedPath(of request: AccessRequest) -> ItemPath {
        if let (_, index) = blocker(of: request) { return request.intents[index].intent.path }
        if case .consultingPresenters(let round) = request.state,
            let path = round.awaiting.lazy.compactMap({ self.pendingReplies[$0]?.path }).first
        {
            return path
        }
        return request.intents.first?.intent.path ?? .root
    }

    /// Grants a request whose round is over and that nothing blocks.
    mutating func grant(_ id: RequestID, _ outcome: inout EventOutcome) {
        guard var request = requests[id] else { return }
        request.state = .granted
        if request.timerArmed {
            request.timerArmed = false
            outcome.actions.append(.cancelTimer(id))
        }
        requests[id] = request
        outcome.actions.append(
            .grant(id, request.client, paths: request.currentPaths, reportsPresence: wantsPresence(of: request)))
    }

    /// Ends a granted access: releases its claims, sends `didChange`s and reacquires, rechecks its waiters.
    mutating func finishAccess(_ id: RequestID, presence: [ItemPresence?] = [], _ outcome: inout EventOutcome) {
        guard let request = requests.removeValue(forKey: id) else { return }
        outcome.recheck.append(contentsOf: conflictingRequests(of: request))
        // Few requests move anything: the common one pays one check.
        if !movedClaims.isEmpty { releaseMovedClaims(of: request, &outcome) }
        sendChangeNotifications(after: request, presence: presence, &outcome)
        if !movedPaths.isEmpty { movedPaths[id] = nil }
        releaseClaims(of: request)
        sendReacquires(for: request, &outcome)
    }

    /// Drops a request that was not granted; reports `failure` unless nil (its client is gone).
    mutating func abandon(_ id: RequestID, failure: AccessFailure?, _ outcome: inout EventOutcome) {
        guard let request = requests.removeValue(forKey: id) else { return }
        outcome.recheck.append(contentsOf: conflictingRequests(of: request))
        releaseClaims(of: request)
        if case .consultingPresenters(let round) = request.state {
            for message in round.awaiting { pendingReplies[message] = nil }
        }
        if request.timerArmed { outcome.actions.append(.cancelTimer(id)) }
        if let failure { outcome.actions.append(.fail(id, request.client, failure)) }
        sendReacquires(for: request, &outcome)
    }

    /// Removes the claims of `request`'s intents from the claim table.
    mutating func releaseClaims(of request: AccessRequest) {
        for (index, claimed) in request.intents.enumerated() {
            table.removeClaim(of: request.id, intentIndex: index, at: claimed.node)
        }
    }

    /// Releases the claims an ending access gained in moves, noting the requests they kept waiting for a
    /// recheck (out of line: rarely needed).
    @inline(never)
    mutating func releaseMovedClaims(of request: AccessRequest, _ outcome: inout EventOutcome) {
        guard let moved = movedClaims.removeValue(forKey: request.id) else { return }
        var found: [RequestID] = []
        for claimed in moved { collectConflicts(of: claimed, for: request, into: &found) }
        outcome.recheck.append(contentsOf: found)
        for (offset, claimed) in moved.enumerated() {
            table.removeClaim(of: request.id, intentIndex: request.intents.count + offset, at: claimed.node)
        }
    }
}
