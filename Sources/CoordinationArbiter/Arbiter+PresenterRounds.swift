extension Arbiter {
    /// Starts the round of an unblocked request (granting it at once when nobody must be asked).
    mutating func beginRound(_ id: RequestID, _ outcome: inout EventOutcome) {
        guard let request = requests[id] else { return }
        let plan = planRound(for: request)
        if plan.relinquishments.isEmpty && plan.preparations.isEmpty {
            // Nobody to consult: the round is over as soon as it starts.
            if blocker(of: request) == nil {
                grant(id, &outcome)
            } else {
                requests[id]?.state = .readyAfterRound
            }
            return
        }
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
            .accommodateSubitemDeletion, .didChange, .didMove, .subitemDidChange, .subitemDidAppear, .subitemDidMove,
            .versionsChanged, .subitemVersionsChanged:
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
            var directoryPresenters: [PresenterID] = []
            if let options = intent.writingOptions, options.contains(.forDeleting) {
                directoryPresenters = enclosingPresenters(
                    of: intent.path, skippingDepths: intent.packageRootDepths, excluding: request.purpose)
            }
            plan.add(
                intent, itemPresenters: itemPresenters, packagePresenters: packagePresenters,
                contentPresenters: contentPresenters, directoryPresenters: directoryPresenters)
        }
        return plan
    }

    /// After a granted request, tells presenters what its writes did.
    ///
    /// For each write intent but a `.forMoving` one, and none at a path the request moved an item from or to
    /// (the move was reported by ``itemMoved(_:from:at:to:)``):
    /// - the item's presenters get `didChange` after plain, `.forMerging` and `.contentIndependentMetadataOnly`
    ///   writes ("contents or attributes" changed); after `.forDeleting` and `.forReplacing` writes they were
    ///   asked to accommodate the deletion instead;
    /// - the presenters of every enclosing directory and package, nearest first, get `subitemDidAppear` if the
    ///   client reports that the item did not exist before the access and does after, nothing if it existed
    ///   neither before nor after, and `subitemDidChange` otherwise: for a change, a replacement, a metadata
    ///   change, a deletion (after `accommodateSubitemDeletion`), and whenever the client reported nothing.
    mutating func sendChangeNotifications(
        after request: AccessRequest, presence: [ItemPresence?], _ outcome: inout EventOutcome
    ) {
        guard !presenters.isEmpty else { return }
        let moved = movedPaths.isEmpty ? [] : movedPaths[request.id] ?? []
        var told: [PresenterID] = []
        var toldSubitem: [(PresenterID, ItemPath)] = []
        for (index, claimed) in request.intents.enumerated() {
            guard let options = claimed.intent.writingOptions, !options.contains(.forMoving) else { continue }
            let path = claimed.intent.path
            if !moved.isEmpty && moved.contains(path) { continue }
            let subitemMessage: PresenterMessage?
            if index < presence.count, let seen = presence[index] {
                switch (seen.existedBefore, seen.existsAfter) {
                case (false, true): subitemMessage = .subitemDidAppear(path)
                case (false, false): subitemMessage = nil
                case (true, true), (true, false): subitemMessage = .subitemDidChange(path)
                }
            } else {
                subitemMessage = .subitemDidChange(path)
            }
            let (deepest, depth) =
                claimed.intent.claimDepth == path.depth
                ? (claimed.node, path.depth) : table.deepestExistingNode(along: path)
            if depth == path.depth && options.isDisjoint(with: AccessIntent.WritingOptions.removingItem) {
                for presenter in presenters(at: deepest, excluding: request.purpose) where !told.contains(presenter) {
                    told.append(presenter)
                    send(.didChange, to: presenter, for: request.id, about: path, &outcome)
                }
            }
            guard let subitemMessage else { continue }
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
                    send(subitemMessage, to: presenter, for: request.id, about: path, &outcome)
                }
                directory = table.nodes[directory].parent
            }
        }
    }

    /// True when a presenter of a directory or package enclosing an item the request writes (other than by
    /// moving it) will hear of the write: then the grant asks the client to report the items' presence.
    func wantsPresence(of request: AccessRequest) -> Bool {
        guard !presenters.isEmpty else { return false }
        for claimed in request.intents {
            guard let options = claimed.intent.writingOptions, !options.contains(.forMoving) else { continue }
            if !enclosingPresenters(of: claimed.intent.path, skippingDepths: [], excluding: request.purpose).isEmpty {
                return true
            }
        }
        return false
    }

    /// The presenters (other than of `purpose`) of the directories strictly enclosing `path`, nearest first,
    /// leaving out those at `skippingDepths`.
    func enclosingPresenters(of path: ItemPath, skippingDepths: [Int], excluding purpose: PurposeID) -> [PresenterID] {
        var (node, depth) = table.deepestExistingNode(along: path)
        if depth == path.depth {
            node = table.nodes[node].parent
            depth -= 1
        }
        var found: [PresenterID] = []
        while node >= 0 {
            if !table.nodes[node].presenters.isEmpty && !skippingDepths.contains(depth) {
                found += presenters(at: node, excluding: purpose)
            }
            node = table.nodes[node].parent
            depth -= 1
        }
        return found
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
