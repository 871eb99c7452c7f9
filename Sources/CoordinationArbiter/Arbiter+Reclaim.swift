extension Arbiter {
    /// A client re-declares an access it held under a previous host of the arbiter, which died while the
    /// accessor ran: the request is recorded as granted at once, with no presenter round and no grant action
    /// (the accessor is already running). Its end (``accessEnded(_:from:presence:)``) notifies presenters as usual.
    ///
    /// A host calls this during its grace period, before it grants anything new, so a reclaimed access cannot
    /// conflict with another grant: all reclaimed accesses were held together under the previous host. A
    /// reclaim that comes later is recorded all the same (the accessor cannot be stopped); the host should
    /// report it. ``ProtocolViolation/duplicateRequest(_:)`` for an id already active.
    public mutating func accessReclaimed(
        _ request: RequestID, client: ClientID, purpose: PurposeID, intents: [AccessIntent], now: Instant
    ) -> [ArbiterAction] {
        if requests[request] != nil { return [.failClient(client, .duplicateRequest(request))] }
        let sequence = nextSequence
        nextSequence += 1
        var claimed: [AccessRequest.ClaimedIntent] = []
        claimed.reserveCapacity(intents.count)
        for (index, intent) in intents.enumerated() {
            let node = table.makeNode(at: intent.claimedPath)
            table.addClaim(claimEntry(request, index, sequence, purpose, intent), at: node)
            claimed.append(AccessRequest.ClaimedIntent(intent: intent, node: node))
        }
        requests[request] = AccessRequest(
            id: request, client: client, purpose: purpose, sequence: sequence, requestedAt: now,
            deadline: nil, nestedIn: nil, intents: claimed, state: .granted)
        return []
    }
}
