/// A read-only picture of the arbiter for operators (`quire presenters`, `quire claims`): who presents what,
/// who holds which path, and who waits for whom.
public struct ArbiterSnapshot: Hashable, Sendable {
    /// One registered presenter.
    public struct Presenter: Hashable, Sendable {
        /// The presenter.
        public let presenter: PresenterID
        /// Its owner.
        public let client: ClientID
        /// Its purpose.
        public let purpose: PurposeID
        /// Its item, or nil while it presents none.
        public let path: ItemPath?
        /// Whether it also wants uncoordinated changes reported.
        public let observesUncoordinatedChanges: Bool
    }

    /// Where a request stands.
    public enum Phase: Hashable, Sendable {
        /// Waiting for the requests in ``Claim/blockedBy``.
        case waiting
        /// Waiting for presenters to reply to these messages.
        case askingPresenters([MessageID])
        /// The accessor runs.
        case granted
    }

    /// One intent of one request, on the path it claims; or, for a request that moved an item during its
    /// access, a claim it holds where the item went (see ``Arbiter/itemMoved(_:from:at:to:)``).
    public struct Claim: Hashable, Sendable {
        /// The request.
        public let request: RequestID
        /// Its client.
        public let client: ClientID
        /// Its purpose.
        public let purpose: PurposeID
        /// The intent (its path may lie inside the claimed package); for a claim held where a moved item went,
        /// the intent as moved there.
        public let intent: AccessIntent
        /// When it was asked for.
        public let requestedAt: Instant
        /// Where the request stands.
        public let phase: Phase
        /// The active requests it waits for (empty for holders and for requests asking presenters).
        public let blockedBy: [RequestID]
    }

    /// The claims on one path: holders first, then waiters in arrival order.
    public struct PathClaims: Hashable, Sendable {
        /// The claimed path (an item, or the outermost package enclosing it).
        public let path: ItemPath
        /// Granted claims.
        public let holders: [Claim]
        /// Claims of requests not yet granted, in arrival order.
        public let waiters: [Claim]
    }

    /// Every registered presenter, by path (presenters without a path last), then id.
    public let presenters: [Presenter]
    /// Every claimed path, sorted by path.
    public let claims: [PathClaims]
}

extension Arbiter {
    /// A snapshot of presenters and claims; O(presenters + claims), meant for operator tools, not hot paths.
    public func snapshot() -> ArbiterSnapshot {
        let presenterList = presenters.values.sorted { lhs, rhs in
            switch (lhs.path, rhs.path) {
            case (let left?, let right?): return left == right ? lhs.id < rhs.id : left < right
            case (.some, .none): return true
            case (.none, .some): return false
            case (.none, .none): return lhs.id < rhs.id
            }
        }.map {
            ArbiterSnapshot.Presenter(
                presenter: $0.id, client: $0.client, purpose: $0.purpose, path: $0.path,
                observesUncoordinatedChanges: $0.observesUncoordinatedChanges)
        }

        var byPath: [ItemPath: [(sequence: UInt64, claim: ArbiterSnapshot.Claim)]] = [:]
        for request in requests.values {
            let phase: ArbiterSnapshot.Phase
            var blockedBy: [RequestID] = []
            switch request.state {
            case .granted:
                phase = .granted
            case .consultingPresenters(let round):
                phase = .askingPresenters(round.awaiting)
            case .queued, .readyAfterRound:
                phase = .waiting
                blockedBy = blockers(of: request)
            }
            forEachClaim(of: request) { _, claimed in
                let claim = ArbiterSnapshot.Claim(
                    request: request.id, client: request.client, purpose: request.purpose, intent: claimed.intent,
                    requestedAt: request.requestedAt, phase: phase, blockedBy: blockedBy)
                byPath[table.path(of: claimed.node), default: []].append((request.sequence, claim))
            }
        }
        let claimList = byPath.keys.sorted().map { path in
            let sorted = byPath[path, default: []].sorted { $0.sequence < $1.sequence }.map(\.claim)
            return ArbiterSnapshot.PathClaims(
                path: path, holders: sorted.filter { $0.phase == .granted },
                waiters: sorted.filter { $0.phase != .granted })
        }
        return ArbiterSnapshot(presenters: presenterList, claims: claimList)
    }

    /// Every request that keeps `request` waiting, sorted by id.
    func blockers(of request: AccessRequest) -> [RequestID] {
        let outerHeld = request.nestedIn.map { requests[$0]?.isGranted ?? false } ?? false
        var found: [RequestID] = []
        for claimed in request.intents {
            forEachConflictingClaim(of: claimed) { entry in
                if entry.request != request.id, entry.purpose != request.purpose, !found.contains(entry.request),
                    let other = requests[entry.request], blocks(other, request, outerHeld: outerHeld)
                {
                    found.append(entry.request)
                }
                return true
            }
        }
        return found.sorted()
    }
}
