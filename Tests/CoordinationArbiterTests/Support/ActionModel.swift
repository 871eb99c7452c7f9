import CoordinationArbiter

/// A model of the host that applies the arbiter's actions and records every impossible one.
///
/// It knows what the host knows (the events it fed and the actions it received), never the arbiter's
/// internals. Impossible actions: granting or failing a request that is not waiting, messaging a presenter
/// that is not registered, or one of the requester's own purpose, reusing a message id, a reacquire that
/// matches no relinquish, timers started twice or cancelled while not armed. It also follows moves with its own
/// copy of the rules (the claims a mover gains where the item went, ``claimsGained(holding:from:to:)``) and
/// records a waiting request that a move let escape the mover's claims.
struct ActionModel {
    /// Where a request stands, as the host sees it.
    enum Status: Equatable {
        case waiting
        case granted
        case ended
        case failed(AccessFailure)
        case dropped
        var isTerminal: Bool {
            switch self {
            case .waiting, .granted: return false
            case .ended, .failed, .dropped: return true
            }
        }
    }

    /// A request as the host sees it.
    struct Request {
        let id: RequestID
        let client: ClientID
        let purpose: PurposeID
        let sequence: Int
        let nestedIn: RequestID?
        /// Intents with paths updated for moves while waiting (the model's own bookkeeping).
        var intents: [AccessIntent]
        var status: Status = .waiting
        var grantedPaths: [ItemPath] = []
        var timerArmed = false
        /// Its position in `grantLog`, once granted.
        var grantIndex: Int?
        /// Claims a granted request gained where the items it moved went, each with the length of `grantLog`
        /// when it was gained (grants before it may overlap it: the mover moved onto them uncoordinated).
        var movedClaims: [(intent: AccessIntent, since: Int)] = []

        /// What a granted request holds: its intents at the granted paths, then its moved claims.
        var held: [AccessIntent] {
            zip(grantedPaths, intents).map { AccessIntent(path: $0, access: $1.access) } + movedClaims.map(\.intent)
        }
    }

    /// A registered presenter.
    struct Presenter {
        let client: ClientID
        var purpose: PurposeID
        var path: ItemPath?
    }

    /// A message the host delivered.
    struct Sent {
        let delivery: PresenterDelivery
        /// The presenter's purpose when it was sent.
        let purpose: PurposeID
        var replied = false
        var reacquired = false
    }

    var requests: [RequestID: Request] = [:]
    /// Requests that are waiting or granted (kept apart so that checks need not scan finished ones).
    var active: Set<RequestID> = []
    /// Requests whose timer is armed.
    var armed: Set<RequestID> = []
    var presenters: [PresenterID: Presenter] = [:]
    var sent: [MessageID: Sent] = [:]
    var sentOrder: [MessageID] = []
    /// Messages that expect a reply and have none yet, in the order sent (pruned lazily).
    var awaitingReply: [MessageID] = []
    /// Relinquish messages not yet followed by a reacquire.
    var openRelinquishes: [MessageID] = []
    var lastMessage: UInt64 = 0
    var nextSequence = 0
    var violations: [String] = []
    /// Client violations reported, in order (tests check them explicitly).
    var clientFailures: [(ClientID, ProtocolViolation)] = []
    /// Grants in order, for the fairness checks of the randomized test.
    var grantLog: [RequestID] = []
    /// Version notices delivered (they name no request), in order.
    var versionNotices: [PresenterDelivery] = []
    /// Moves that made at least one waiting intent follow the item (the randomized test makes sure it has some).
    var movesWithWaiters = 0
    /// Called before a grant is applied (the randomized test checks fairness there).
    var onGrant: ((ActionModel, RequestID) -> [String])?

    mutating func violation(_ text: String) { violations.append(text) }

    // MARK: events the host fed

    mutating func requested(
        _ id: RequestID, client: ClientID, purpose: PurposeID, intents: [AccessIntent], nestedIn: RequestID?
    ) {
        if let existing = requests[id], !existing.status.isTerminal { return }  // duplicate: arbiter must reject
        requests[id] = Request(
            id: id, client: client, purpose: purpose, sequence: nextSequence, nestedIn: nestedIn, intents: intents)
        nextSequence += 1
        active.insert(id)
    }

    mutating func ended(_ id: RequestID) {
        if requests[id]?.status == .granted {
            requests[id]?.status = .ended
            active.remove(id)
        }
    }

    mutating func registered(_ id: PresenterID, client: ClientID, purpose: PurposeID, path: ItemPath?) {
        if let existing = presenters[id], existing.client != client { return }
        presenters[id] = Presenter(client: client, purpose: purpose, path: path)
    }

    mutating func presenterMoved(_ id: PresenterID, client: ClientID, path: ItemPath?) {
        if presenters[id]?.client == client { presenters[id]?.path = path }
    }

    mutating func removed(_ id: PresenterID, client: ClientID) {
        if presenters[id]?.client == client { presenters[id] = nil }
    }

    mutating func replied(_ message: MessageID) {
        sent[message]?.replied = true
        awaitingReply.removeAll { $0 == message }
    }

    mutating func disconnected(_ client: ClientID) {
        for id in active {
            guard let request = requests[id], request.client == client else { continue }
            requests[id]?.status = request.status == .granted ? .ended : .dropped  // its timer must be cancelled
            active.remove(id)
        }
        for (id, presenter) in presenters where presenter.client == client { presenters[id] = nil }
    }

    mutating func timerFired(_ id: RequestID) {
        requests[id]?.timerArmed = false
        armed.remove(id)
    }

    /// Applies a move reported by granted writer `mover`: the mover gains claims where the item went (see
    /// ``claimsGained(holding:from:to:)``), the waiting intents (not `.forReplacing` ones) and the presenters at
    /// or inside the old path follow it. A waiting request that conflicted with the mover before the move and no
    /// longer does after it escaped the mover's exclusion: a violation.
    mutating func moved(from old: ItemPath, to new: ItemPath, by mover: RequestID) {
        guard let moving = requests[mover], moving.status == .granted else { return }
        let heldBefore = moving.held
        for intent in Self.claimsGained(holding: heldBefore, from: old, to: new) {
            requests[mover]?.movedClaims.append((intent, grantLog.count))
        }
        let heldAfter = requests[mover]?.held ?? heldBefore
        var followed = false
        for id in active.sorted() {
            guard let request = requests[id], request.status == .waiting else { continue }
            for (index, intent) in request.intents.enumerated() {
                if case .writing(let options) = intent.access, options.contains(.forReplacing) { continue }
                guard let path = intent.path.movingPrefix(from: old, to: new) else { continue }
                requests[id]?.intents[index] = AccessIntent(
                    path: path, access: intent.access,
                    packageRootDepths: path.packageRootDepths(extensions: ["bundle"]),
                    includesContents: intent.includesContents)
                followed = true
            }
            let after = requests[id]?.intents ?? request.intents
            if ConflictRules.requestsConflict(moving.purpose, heldBefore, request.purpose, request.intents)
                && !ConflictRules.requestsConflict(moving.purpose, heldAfter, request.purpose, after)
            {
                violation("\(id) escaped from \(mover)'s claims when \(old) moved to \(new)")
            }
        }
        if followed { movesWithWaiters += 1 }
        for (id, presenter) in presenters {
            if let path = presenter.path?.movingPrefix(from: old, to: new) { presenters[id]?.path = path }
        }
    }

    /// The claims a mover holding `held` gains when it moves `old` to `new`, by the rules written down again:
    /// a held item at or inside `old` is held at its moved path too, with the same access; a write that covers
    /// everything inside a claimed path strictly enclosing `old` (a content-excluding write, or any write of a
    /// package) is held as a content-excluding write of `new`, unless `new` stays inside the claimed path.
    static func claimsGained(holding held: [AccessIntent], from old: ItemPath, to new: ItemPath) -> [AccessIntent] {
        var gained: [AccessIntent] = []
        for intent in held {
            if let path = intent.path.movingPrefix(from: old, to: new) {
                gained.append(AccessIntent(path: path, access: intent.access))
            }
            let claimed = ConflictRules.claimedComponents(intent.path)
            let isPackage = claimed.last?.hasSuffix(".bundle") ?? false
            guard case .writing(let options) = intent.access, claimed.count < old.depth,
                old.components.starts(with: claimed), !new.components.starts(with: claimed),
                ConflictRules.excludesContents(intent) || isPackage
            else { continue }
            let excluding = ConflictRules.excludesContents(intent) ? options : options.union(.forMoving)
            gained.append(AccessIntent(path: new, access: .writing(excluding)))
        }
        return gained
    }

    // MARK: actions the arbiter returned

    mutating func apply(_ actions: [ArbiterAction]) {
        for action in actions { apply(action) }
    }

    mutating func apply(_ action: ArbiterAction) {
        switch action {
        case .grant(let id, let client, let paths, _):
            guard let request = requests[id], request.status == .waiting else {
                return violation("grant of \(id) that is not waiting (\(String(describing: requests[id]?.status)))")
            }
            if request.client != client { violation("grant of \(id) to \(client), asked by \(request.client)") }
            if request.timerArmed { violation("grant of \(id) with its timer still armed") }
            if paths != request.intents.map(\.path) {
                violation("grant of \(id) with paths \(paths), expected \(request.intents.map(\.path))")
            }
            violations += onGrant?(self, id) ?? []
            requests[id]?.status = .granted
            requests[id]?.grantedPaths = paths
            requests[id]?.grantIndex = grantLog.count
            grantLog.append(id)
        case .fail(let id, let client, let failure):
            guard let request = requests[id], request.status == .waiting else {
                return violation("fail of \(id) that is not waiting")
            }
            if request.client != client { violation("fail of \(id) sent to \(client)") }
            if request.timerArmed { violation("fail of \(id) with its timer still armed") }
            requests[id]?.status = .failed(failure)
            active.remove(id)
        case .send(let delivery):
            applySend(delivery)
        case .startTimer(let id, _):
            guard let request = requests[id], request.status == .waiting else {
                return violation("timer for \(id) that is not waiting")
            }
            if request.timerArmed { violation("second timer for \(id)") }
            requests[id]?.timerArmed = true
            armed.insert(id)
        case .cancelTimer(let id):
            guard requests[id]?.timerArmed == true else { return violation("cancelTimer for \(id) not armed") }
            requests[id]?.timerArmed = false
            armed.remove(id)
        case .failClient(let client, let reason):
            clientFailures.append((client, reason))
        }
    }

    mutating func applySend(_ delivery: PresenterDelivery) {
        let id = delivery.id
        if id.rawValue <= lastMessage { violation("message id \(id) reused or out of order") }
        lastMessage = max(lastMessage, id.rawValue)
        guard let presenter = presenters[delivery.presenter] else {
            return violation("\(delivery): presenter not registered")
        }
        if presenter.client != delivery.client { violation("\(delivery): presenter belongs to \(presenter.client)") }
        if case .reacquire = delivery.message {
            // A reacquire ends a relinquish, wherever the presenter is now.
        } else if presenter.path == nil {
            violation("\(delivery): presenter has no path")
        }
        if delivery.request == .noRequest {
            switch delivery.message {
            case .versionsChanged, .subitemVersionsChanged:
                versionNotices.append(delivery)
            default:
                violation("\(delivery): only a version notice is sent without a request")
            }
            sent[id] = Sent(delivery: delivery, purpose: presenter.purpose)
            sentOrder.append(id)
            return
        }
        guard let request = requests[delivery.request] else { return violation("\(delivery): unknown request") }
        if request.purpose == presenter.purpose { violation("\(delivery): sent to the requester's own purpose") }
        switch delivery.message {
        case .relinquishToReader, .relinquishToWriter, .savePresentedItemChanges, .accommodateDeletion,
            .accommodateSubitemDeletion:
            if request.status != .waiting { violation("\(delivery): request is not waiting") }
        case .didMove, .subitemDidMove:
            if request.status != .granted { violation("\(delivery): mover is not granted") }
        case .subitemDidAppear:
            // Sent by a move during the access, or by a write that created the item when it ends.
            if request.status != .granted && request.status != .ended {
                violation("\(delivery): request neither granted nor ended")
            }
        case .reacquire(let relinquish):
            guard let original = sent[relinquish], original.delivery.message.isRelinquish,
                original.delivery.presenter == delivery.presenter, original.delivery.request == delivery.request
            else { return violation("\(delivery): matches no relinquish") }
            if original.reacquired { violation("\(delivery): second reacquire") }
            sent[relinquish]?.reacquired = true
            openRelinquishes.removeAll { $0 == relinquish }
        case .didChange, .subitemDidChange:
            break
        case .versionsChanged, .subitemVersionsChanged:
            violation("\(delivery): a version notice names a request")
        }
        sent[id] = Sent(delivery: delivery, purpose: presenter.purpose)
        sentOrder.append(id)
        if delivery.message.expectsReply { awaitingReply.append(id) }
        if delivery.message.isRelinquish { openRelinquishes.append(id) }
    }

    // MARK: queries

    /// Messages still owed a reply by registered presenters, in the order they were sent.
    var unreplied: [PresenterDelivery] {
        awaitingReply.compactMap { sent[$0] }.filter {
            !$0.replied && presenters[$0.delivery.presenter] != nil
                && requests[$0.delivery.request]?.status == .waiting
        }.map(\.delivery)
    }

    /// True if `request` waits for a reply from a presenter of `purpose`.
    func awaitsReply(_ request: RequestID, fromPurpose purpose: PurposeID) -> Bool {
        unreplied.contains { $0.request == request && sent[$0.id]?.purpose == purpose }
    }
}
