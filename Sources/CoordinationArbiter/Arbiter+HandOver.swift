/// What a host that hands accesses over ahead of time needs to know of the arbiter: it plays an end on a copy
/// (`var copy = arbiter; copy.accessEnded(…)`) to predict what it will grant, and keeps the prediction across a
/// new request only when that request surely waits behind the last predicted grant.
extension Arbiter {
    /// The number of requests granted or waiting.
    public var requestCount: Int { requests.count }

    /// Whether `request` is granted or waiting.
    public func isActive(_ request: RequestID) -> Bool { requests[request] != nil }

    /// Whether a new request (not yet submitted) with these properties will wait behind `tail`, whatever happens
    /// before to the requests that are ahead of `tail`, as long as `tail` is waiting or granted: it is not nested
    /// nor reclaimed, `tail` is not nested either and has another purpose, and one of its intents claims the path
    /// one of `tail`'s intents claims, one of the two writing. A new request comes after every waiting one, so
    /// `tail` blocks it until `tail` ends. False when `tail` is unknown, or when this cheap test cannot tell.
    public func isSurelyBlocked(
        purpose: PurposeID, intents: [AccessIntent], nestedIn: RequestID?, reclaim: Bool, behind tail: RequestID
    ) -> Bool {
        guard nestedIn == nil, !reclaim, let other = requests[tail], other.purpose != purpose, other.nestedIn == nil
        else { return false }
        for intent in intents {
            for claimed in other.intents
            where claimed.intent.claimedPath == intent.claimedPath && (claimed.intent.isWrite || intent.isWrite) {
                return true
            }
        }
        return false
    }
}
