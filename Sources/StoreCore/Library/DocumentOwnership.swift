import Synchronization

/// Which node owns each document, as this node learns it from the store's ``NodeRegistry``: on one node, this
/// node, always; in a cluster, the registry's answer (a document with no owner, or a dead one, is claimed for this
/// node on the way), remembered for ``cacheLifetime`` so that a request's check does not cost a query.
///
/// An owner changes only when its node has been dead for ``NodeMembership/liveness``, so the lifetime bounds
/// nothing that matters but the registry's load. The remembered answers are bounded too: expired ones are dropped
/// whenever their number doubles, so a node that asked about every document of a large store keeps only those of
/// the last ``cacheLifetime``.
final class DocumentOwnership: Sendable {
    /// This node in the registry.
    let membership: NodeMembership
    /// Whether documents have owners among several nodes.
    let isCluster: Bool
    /// How long an answer is trusted.
    let cacheLifetime: Duration

    /// The answers remembered, each until an instant; and how many there may be before the expired ones go.
    struct Cache {
        private(set) var entries: [DocumentID: (owner: DocumentOwner, until: ContinuousClock.Instant)] = [:]
        private var pruneAt = Cache.minimumPruneAt
        static let minimumPruneAt = 1024

        /// The owner remembered for `id`, if its answer has not expired at `now`.
        func owner(of id: DocumentID, at now: ContinuousClock.Instant) -> DocumentOwner? {
            guard let entry = entries[id], entry.until > now else { return nil }
            return entry.owner
        }

        /// Remembers `owner` for `id` until `until`; drops the expired answers (as of `now`) when their number
        /// reached twice what was left after the last time.
        mutating func remember(_ owner: DocumentOwner, of id: DocumentID, until: ContinuousClock.Instant, now: ContinuousClock.Instant) {
            entries[id] = (owner, until)
            guard entries.count >= pruneAt else { return }
            entries = entries.filter { $0.value.until > now }
            pruneAt = max(Cache.minimumPruneAt, entries.count * 2)
        }

        mutating func forget(_ id: DocumentID) { entries.removeValue(forKey: id) }
    }

    private let cache = Mutex(Cache())

    /// The ownership of a node of a cluster (`isCluster`), or of a node alone.
    init(membership: NodeMembership, isCluster: Bool, cacheLifetime: Duration = .seconds(1)) {
        self.membership = membership
        self.isCluster = isCluster
        self.cacheLifetime = cacheLifetime
    }

    /// Which node owns document `id`: this one on a node alone; else the remembered answer, or the registry's,
    /// which claims the document for this node when it has no owner or a dead one (no heartbeat within
    /// ``NodeMembership/liveness``) and says so with `.this(takenOverFrom:)`. A node whose own heartbeats have
    /// not reached the registry for that long (``NodeMembership/mayTakeOver``) claims nothing from a dead node.
    /// - Throws: ``StoreError/unavailable(_:retryAfterSeconds:)`` when the registry cannot be read.
    func owner(of id: DocumentID, now: ContinuousClock.Instant = .now) async throws -> DocumentOwner {
        guard isCluster else { return .this(takenOverFrom: nil) }
        if let known = cache.withLock({ $0.owner(of: id, at: now) }) { return known }
        let owner: DocumentOwner
        do {
            // A node that has just come back (from an outage of the database, say) takes nothing over yet: the
            // owner it would take from may be coming back too.
            owner = try await membership.registry.owner(
                of: id, claimingFor: membership.id,
                liveness: membership.mayTakeOver ? NodeMembership.liveness : .seconds(365 * 86_400))
        } catch {
            throw StoreError.unavailable(
                "the owner of document \(id.rawValue) cannot be read: \(error)", retryAfterSeconds: 1)
        }
        remember(owner, of: id, now: now)
        return owner
    }

    /// Remembers `owner` for `id` for ``cacheLifetime`` from `now` (a takeover is remembered as plain ownership: it
    /// is reported once).
    func remember(_ owner: DocumentOwner, of id: DocumentID, now: ContinuousClock.Instant = .now) {
        let kept: DocumentOwner = if case .this = owner { .this(takenOverFrom: nil) } else { owner }
        cache.withLock { $0.remember(kept, of: id, until: now + cacheLifetime, now: now) }
    }

    /// Forgets what was learned of document `id`'s owner: the next question asks the registry.
    func forget(_ id: DocumentID) {
        cache.withLock { $0.forget(id) }
    }

    /// How many answers are remembered (expired ones included until they are dropped).
    var rememberedCount: Int { cache.withLock { $0.entries.count } }

    /// Whether node `id` is alive (a heartbeat within ``NodeMembership/liveness``); true when the registry cannot
    /// be read (nothing is taken from a node on the strength of an error).
    func isAlive(_ id: String) async -> Bool {
        guard let nodes = try? await membership.registry.nodes(liveness: NodeMembership.liveness) else { return true }
        return nodes.first { $0.node.id == id }?.isLive ?? false
    }
}
