extension Arbiter {
    /// Starts the round of an unblocked request (granting it at once when nobody must be asked).
    mutating func beginRound(_ id: RequestID, _ outcome: inout EventOutcome) {
        guard let request = requests[id] else { return }
        let plan = planRound(for: request)
        requests[id]?.state = .consultingPresenters(PresenterRound(preparations: plan.preparations))
        var awaiting: [MessageID] = []
        for planned in plan.relinquishments {
            guard let message = send(planned.message, to: planned.presenter, for: id, about: planned.path, &outcome)
            else { continue }
            awaiting.append(message)
            requests[id]?.relinquished.append(
                AccessRequest.Relinquishment(presenter: planned.presenter, message: message))
        }
        continueRound(id, awaiting: awaiting, &outcome)
    }

    /// Records the replies now awaited; when there are none, moves to the next phase or ends the round.
    mutating func continueRound(_ id: RequestID, awaiting: [MessageID], _ outcome: inout EventOutcome) {
        var awaiting = awaiting
        while true {
            guard let request = requests[id], case .consultingPresenters(var round) = request.state else { return }
            if !awaiting.isEmpty {
                round.awaiting = awaiting
                requests[id]?.state = .consultingPresenters(round)
                // Requests of the purposes now awaited may overtake this one (see `Arbiter`): check them.
                let purposes = awaiting.compactMap { pendingReplies[$0]?.purpose }
                for other in conflictingRequests(of: request)
                where requests[other].map({ purposes.contains($0.purpose) }) ?? false {
                    outcome.recheck.append(other)
                }
                return
            }
            switch round.phase {
            case .relinquishing:
                round.phase = .preparing
                round.awaiting = []
                let preparations = round.preparations
                round.preparations = []
                requests[id]?.state = .consultingPresenters(round)
                for planned in preparations {
                    if let message = send(
                        planned.message, to: planned.presenter, for: id, about: planned.path, &outcome)
                    {
                        awaiting.append(message)
                    }
                }
            case .preparing:
                if blocker(of: request) == nil {
                    grant(id, &outcome)
                } else {
                    requests[id]?.state = .readyAfterRound
                }
                return
            }
        }
    }

    /// Counts a reply (or a presenter's disappearance) for a pending message; an error fails the request.
    mutating func resolveReply(_ message: MessageID, failure: PresenterFailure?, _ outcome: inout EventOutcome) {
        guard let pending = pendingReplies.removeValue(forKey: message) else { return }
        if let failure {
            abandon(pending.request, failure: .presenterFailed(failure), &outcome)
            return
        }
        guard let request = requests[pending.request], case .consultingPresenters(let round) = request.state else {
            return
        }
        let remaining = round.awaiting.filter { $0 != message }
        if remaining.isEmpty {
            continueRound(pending.request, awaiting: [], &outcome)
        } else {
            var updated = round
            updated.awaiting = remaining
            requests[pending.request]?.state = .consultingPresenters(updated)
        }
    }

    /// Sends one message to a registered presenter; returns its id, or nil if the presenter is gone.
    ///
    /// A presenter without a path gets only reacquires (which end a relinquish it already had); this also
    /// skips the second phase for a presenter that lost its path during the round. Messages that expect a
    /// reply are recorded as pending, about `path`.
    @discardableResult
    mutating func send(
        _ message: PresenterMessage, to presenter: PresenterID, for request: RequestID, about path: ItemPath,
        _ outcome: inout EventOutcome
    ) -> MessageID? {
        guard let record = presenters[presenter] else { return nil }
        switch message {
        case .reacquire:
            break
        case .relinquishToReader, .relinquishToWriter, .savePresentedItemChanges, .accommodateDeletion,
            .accommodateSubitemDeletion, .didChange, .didMove, .subitemDidChange, .subitemDidAppear, .subitemDidMove:
            guard record.path != nil else { return nil }
        }
        let id = MessageID(nextMessage)
        nextMessage += 1
        if message.expectsReply {
            pendingReplies[id] = PendingReply(
                request: request, presenter: presenter, client: record.client, purpose: record.purpose, path: path)
        }
        outcome.actions.append(
            .send(
                PresenterDelivery(
                    client: record.client, presenter: presenter, id: id, message: message, request: request)))
        return id
    }

    /// Works out who gets which message before `request` is granted.
    func planRound(for request: AccessRequest) -> RoundPlan {
        var plan = RoundPlan()
        guard !presenters.isEmpty else { return plan }
        for claimed in request.intents {
            let intent = claimed.intent
            let item = itemNode(of: claimed)
            let itemPresenters = item.map { presenters(at: $0, excluding: request.purpose) } ?? []
            var packagePresenters: [PresenterID] = []
            for depth in intent.packageRootDepths where depth < intent.path.depth {
                if let package = table.node(at: intent.path.prefix(depth)) {
                    packagePresenters += presenters(at: package, excluding: request.purpose)
                }
            }
            var contentPresenters: [PresenterID] = []
            if intent.excludesContents || intent.includesContents, let item, table.nodes[item].presentersBelow > 0 {
                contentPresenters = inRegistrationOrder(table.presenters(below: item), excluding: request.purpose)
            }
            plan.add(
                intent, itemPresenters: itemPresenters, packagePresenters: packagePresenters,
                contentPresenters: contentPresenters)
        }
        return plan
    }

    /// After a granted request: `didChange` and `subitemDidChange` for plain and merging writes.
    mutating func sendChangeNotifications(after request: AccessRequest, _ outcome: inout EventOutcome) {
        guard !presenters.isEmpty else { return }
        var told: [PresenterID] = []
        var toldSubitem: [(PresenterID, ItemPath)] = []
        for claimed in request.intents {
            guard let options = claimed.intent.writingOptions,
                options.isDisjoint(with: [.forDeleting, .forMoving, .forReplacing, .contentIndependentMetadataOnly])
            else { continue }
            let path = claimed.intent.path
            let (deepest, depth) =
                claimed.intent.claimDepth == path.depth
                ? (claimed.node, path.depth) : table.deepestExistingNode(along: path)
            if depth == path.depth {
                for presenter in presenters(at: deepest, excluding: request.purpose) where !told.contains(presenter) {
                    told.append(presenter)
                    send(.didChange, to: presenter, for: request.id, about: path, &outcome)
                }
            }
            // Every enclosing directory, nearest first (the deepest existing node itself if the item has none).
            var directory = depth == path.depth ? table.nodes[deepest].parent : deepest
            while directory >= 0 {
                if table.nodes[directory].presenters.isEmpty {
                    directory = table.nodes[directory].parent
                    continue
                }
                for presenter in presenters(at: directory, excluding: request.purpose)
                where !toldSubitem.contains(where: { $0.0 == presenter && $0.1 == path }) {
                    toldSubitem.append((presenter, path))
                    send(.subitemDidChange(path), to: presenter, for: request.id, about: path, &outcome)
                }
                directory = table.nodes[directory].parent
            }
        }
    }

    /// Sends the reacquire of every presenter that relinquished for `request` and is still registered.
    mutating func sendReacquires(for request: AccessRequest, _ outcome: inout EventOutcome) {
        for relinquishment in request.relinquished {
            send(
                .reacquire(relinquishMessage: relinquishment.message), to: relinquishment.presenter, for: request.id,
                about: request.intents.first?.intent.path ?? .root, &outcome)
        }
    }

    /// The claim table node of an intent's item, if it exists: its claim node unless the item lies inside a
    /// package.
    func itemNode(of claimed: AccessRequest.ClaimedIntent) -> Int? {
        claimed.intent.claimDepth == claimed.intent.path.depth ? claimed.node : table.node(at: claimed.intent.path)
    }

    /// The presenters at `node` whose purpose is not `purpose`, in registration order.
    func presenters(at node: Int, excluding purpose: PurposeID) -> [PresenterID] {
        let here = table.nodes[node].presenters
        return here.isEmpty ? here : here.filter { presenters[$0]?.purpose != purpose }
    }

    /// `ids` without presenters of `purpose`, sorted by registration order.
    func inRegistrationOrder(_ ids: [PresenterID], excluding purpose: PurposeID) -> [PresenterID] {
        ids.compactMap { presenters[$0] }.filter { $0.purpose != purpose }.sorted { $0.sequence < $1.sequence }
            .map(\.id)
    }
}
