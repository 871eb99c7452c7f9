import CoordinationArbiter

/// A picture of the arbiter as a host sends it to a client (`quire presenters`, `quire claims`): an
/// ``ArbiterSnapshot`` with the process id of each client.
struct WireSnapshot: Hashable, Sendable {
    /// One registered presenter.
    struct Presenter: Hashable, Sendable {
        /// The presenter.
        let presenter: PresenterID
        /// Its owner.
        let client: ClientID
        /// The owner's process id.
        let pid: Int32
        /// Its purpose.
        let purpose: PurposeID
        /// Its item, or nil while it presents none.
        let path: ItemPath?
        /// Whether it also wants uncoordinated changes reported.
        let observesUncoordinatedChanges: Bool
    }

    /// One intent of one request on the path it claims (see ``ArbiterSnapshot/Claim``).
    struct Claim: Hashable, Sendable {
        /// The request.
        let request: RequestID
        /// Its client.
        let client: ClientID
        /// The client's process id.
        let pid: Int32
        /// Its purpose.
        let purpose: PurposeID
        /// The intent.
        let intent: AccessIntent
        /// When it was asked for, on the host's clock.
        let requestedAt: Instant
        /// Where the request stands.
        let phase: ArbiterSnapshot.Phase
        /// The active requests it waits for.
        let blockedBy: [RequestID]
    }

    /// The claims on one path: holders first, then waiters in arrival order.
    struct PathClaims: Hashable, Sendable {
        /// The claimed path.
        let path: ItemPath
        /// Granted claims.
        let holders: [Claim]
        /// Claims of requests not yet granted, in arrival order.
        let waiters: [Claim]
    }

    /// Every registered presenter, in the arbiter's order.
    let presenters: [Presenter]
    /// Every claimed path, sorted by path.
    let claims: [PathClaims]

    /// Makes a snapshot from its parts (the decoder and tests use it).
    init(presenters: [Presenter], claims: [PathClaims]) {
        self.presenters = presenters
        self.claims = claims
    }

    /// The host's snapshot of its arbiter, with `pid(client)` as each client's process id.
    init(_ snapshot: ArbiterSnapshot, pid: (ClientID) -> Int32) {
        presenters = snapshot.presenters.map {
            Presenter(
                presenter: $0.presenter, client: $0.client, pid: pid($0.client), purpose: $0.purpose, path: $0.path,
                observesUncoordinatedChanges: $0.observesUncoordinatedChanges)
        }
        func claim(_ claim: ArbiterSnapshot.Claim) -> Claim {
            Claim(
                request: claim.request, client: claim.client, pid: pid(claim.client), purpose: claim.purpose,
                intent: claim.intent, requestedAt: claim.requestedAt, phase: claim.phase, blockedBy: claim.blockedBy)
        }
        claims = snapshot.claims.map {
            PathClaims(path: $0.path, holders: $0.holders.map { claim($0) }, waiters: $0.waiters.map { claim($0) })
        }
    }
}
