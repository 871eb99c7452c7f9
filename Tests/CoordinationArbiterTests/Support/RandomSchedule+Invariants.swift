import CoordinationArbiter

extension RandomSchedule {
    /// Checked at the moment of each grant: nothing granted conflicts with it, and no earlier conflicting
    /// request still waits, unless it is nested in a granted request of its coordinator, or the earlier one
    /// waits for a reply from a presenter of the grantee's purpose.
    static func fairnessViolations(_ model: ActionModel, granting id: RequestID) -> [String] {
        guard let request = model.requests[id] else { return [] }
        var found: [String] = []
        for other in model.active.compactMap({ model.requests[$0] }) where other.id != id && other.status == .granted {
            // What it holds includes the claims it gained where the items it moved went.
            if ConflictRules.requestsConflict(request.purpose, request.intents, other.purpose, other.held) {
                found.append("\(id) granted while conflicting \(other.id) is granted")
            }
        }
        if let outer = request.nestedIn, model.requests[outer]?.status == .granted { return found }
        for other in model.active.compactMap({ model.requests[$0] })
        where other.status == .waiting && other.sequence < request.sequence {
            guard ConflictRules.requestsConflict(request.purpose, request.intents, other.purpose, other.intents) else {
                continue
            }
            if model.awaitsReply(other.id, fromPurpose: request.purpose) { continue }
            if ConflictRules.readsOnly(request.intents) && !ConflictRules.readsOnly(other.intents) {
                found.append("reader \(id) overtook the earlier waiting writer \(other.id)")
            } else {
                found.append("\(id) overtook the earlier conflicting \(other.id) (FIFO)")
            }
        }
        return found
    }

    /// Checks after every step; the costlier whole-state comparisons every `thoroughEvery` steps (an error
    /// there persists until it is seen, so it is only seen a few steps late).
    mutating func check(thorough: Bool) {
        if !h.model.violations.isEmpty {
            failures += h.model.violations
            failures += trace
            return
        }
        // Timers are disarmed once a request is over.
        for id in h.model.armed where h.model.requests[id]?.status.isTerminal != false {
            failures.append("\(id) is over but its timer is armed")
        }
        // Every presenter that relinquished for a finished request, and is still registered, reacquired.
        for message in h.model.openRelinquishes {
            guard let sent = h.model.sent[message], sent.delivery.message.isRelinquish, !sent.reacquired,
                h.model.presenters[sent.delivery.presenter] != nil,
                h.model.requests[sent.delivery.request]?.status.isTerminal == true
            else { continue }
            failures.append("\(sent.delivery) was never followed by a reacquire")
        }
        guard thorough else {
            if !failures.isEmpty { failures.append(contentsOf: trace) }
            return
        }
        let requests = h.model.active.compactMap { h.model.requests[$0] }.sorted { $0.sequence < $1.sequence }
        // No two conflicting grants at once, moved claims included: a claim gained in a move must not conflict
        // with anything granted after it (what was granted before, the mover moved onto uncoordinated).
        let granted = requests.filter { $0.status == .granted }
        for (index, first) in granted.enumerated() {
            for second in granted[(index + 1)...] {
                let a = zip(first.grantedPaths, first.intents).map { AccessIntent(path: $0, access: $1.access) }
                let b = zip(second.grantedPaths, second.intents).map { AccessIntent(path: $0, access: $1.access) }
                if ConflictRules.requestsConflict(first.purpose, a, second.purpose, b) {
                    failures.append("\(first.id) and \(second.id) hold conflicting grants")
                }
                for (mover, other, grant) in [(first, second, b), (second, first, a)] {
                    let later = mover.movedClaims.filter { $0.since <= (other.grantIndex ?? 0) }.map(\.intent)
                    if ConflictRules.requestsConflict(mover.purpose, later, other.purpose, grant) {
                        failures.append("\(other.id) was granted against a claim \(mover.id) gained in a move")
                    }
                }
            }
        }
        // The arbiter's view agrees with the host's.
        let snapshot = h.arbiter.snapshot()
        let storedPaths = Dictionary(uniqueKeysWithValues: snapshot.presenters.map { ($0.presenter, $0.path) })
        let modelPaths = Dictionary(uniqueKeysWithValues: h.model.presenters.map { ($0.key, $0.value.path) })
        if storedPaths != modelPaths { failures.append("presenter paths \(storedPaths) != model \(modelPaths)") }
        var holders = Set<RequestID>()
        var waiters = Set<RequestID>()
        for path in snapshot.claims {
            holders.formUnion(path.holders.map(\.request))
            waiters.formUnion(path.waiters.map(\.request))
        }
        let withIntents = requests.filter { !$0.intents.isEmpty }
        if holders != Set(withIntents.filter { $0.status == .granted }.map(\.id)) {
            failures.append("snapshot holders \(holders.sorted()) disagree with the model")
        }
        // Every holder holds exactly what the model says, moved claims included (compared by what they cover).
        var heldInSnapshot: [RequestID: [HeldClaim]] = [:]
        for path in snapshot.claims {
            for claim in path.holders {
                heldInSnapshot[claim.request, default: []].append(HeldClaim(path.path.components, claim.intent))
            }
        }
        for request in withIntents where request.status == .granted {
            let expected = HeldClaim.covering(
                request.held.map { HeldClaim(ConflictRules.claimedComponents($0.path), $0) })
            let found = HeldClaim.covering(heldInSnapshot[request.id] ?? [])
            if expected != found {
                failures.append(
                    "\(request.id) holds \(found.sorted()) in the snapshot, the model says \(expected.sorted())")
            }
        }
        if waiters != Set(withIntents.filter { $0.status == .waiting }.map(\.id)) {
            failures.append("snapshot waiters \(waiters.sorted()) disagree with the model")
        }
        if !failures.isEmpty { failures.append(contentsOf: trace) }
    }

    /// Replies to everything and ends every access until nothing moves: every request must then be over.
    mutating func drain() {
        for _ in 0..<10_000 {
            if let delivery = pick(h.model.unreplied) {
                log("drain reply \(delivery)", h.reply(delivery.id, client: delivery.client))
            } else if let request = pick(
                h.model.active.compactMap { self.h.model.requests[$0] }.filter { $0.status == .granted }.sorted {
                    $0.sequence < $1.sequence
                })
            {
                log("drain end \(request.id)", h.end(request.id.rawValue, client: request.client.rawValue))
            } else {
                break
            }
            check(thorough: false)
            if !failures.isEmpty { return }
        }
        check(thorough: true)
        let stuck = h.model.active.sorted()
        if !stuck.isEmpty {
            failures.append("stuck after draining: \(stuck)")
            failures.append(contentsOf: trace)
        }
        let snapshot = h.arbiter.snapshot()
        if !snapshot.claims.isEmpty { failures.append("claims left after draining: \(snapshot.claims.map(\.path))") }
    }
}

/// A held claim as far as the waiting rules see it: the claimed path and what the claim excludes.
struct HeldClaim: Hashable, Comparable, CustomStringConvertible {
    let path: [String]
    let isWrite: Bool
    let excludesContents: Bool

    init(_ path: [String], _ intent: AccessIntent) {
        self.path = path
        isWrite = ConflictRules.isWrite(intent)
        excludesContents = ConflictRules.excludesContents(intent)
    }

    /// True if `self` conflicts with at least everything `other` conflicts with (same path, no weaker).
    func covers(_ other: HeldClaim) -> Bool {
        path == other.path && (isWrite || !other.isWrite) && (excludesContents || !other.excludesContents)
    }

    /// The claims not covered by another one: two lists of claims that hold the same are equal after it.
    static func covering(_ claims: [HeldClaim]) -> Set<HeldClaim> {
        let unique = Set(claims)
        return unique.filter { claim in !unique.contains { $0 != claim && $0.covers(claim) } }
    }

    static func < (lhs: HeldClaim, rhs: HeldClaim) -> Bool { lhs.description < rhs.description }

    var description: String {
        "/" + path.joined(separator: "/") + (isWrite ? (excludesContents ? " w+" : " w") : " r")
    }
}
