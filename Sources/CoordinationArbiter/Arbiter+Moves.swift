extension Arbiter {
    /// Inside a granted write, the accessor moved the item at `oldPath` to `newPath` (`item(at:didMoveTo:)`).
    ///
    /// Sent at once, during the access, in this order (none to presenters of the mover's purpose):
    /// 1. `didMove(new path)` to the presenters of the item and of everything inside it, in registration order;
    /// 2. `subitemDidMove(from:to:)` to presenters of each directory that contained the item, nearest first;
    /// 3. `subitemDidAppear(newPath)` to presenters of each directory that contains the new path but did not
    ///    contain the old one, nearest first.
    ///
    /// The stored paths of all moved presenters are updated (the mover's own included, although they are not
    /// told). Waiting requests whose intents lie at or inside `oldPath` follow the move, except `.forReplacing`
    /// intents; granted requests keep the paths they were granted.
    ///
    /// The mover keeps its claims and also holds, until its access ends, claims where the moved item went, so
    /// that the waiters that followed the item still wait for it:
    /// - each claim whose item lies at or inside `oldPath` is held again at the moved path, with the same access
    ///   (packages carried as for waiting intents);
    /// - each write claim that covers everything inside a directory or package strictly enclosing `oldPath`
    ///   (a `.forDeleting`, `.forMoving` or `.forReplacing` write, or any write of a package) is held again as a
    ///   write of `newPath` that excludes its contents (with `.forMoving` added if its options exclude nothing),
    ///   unless `newPath` still lies inside the claimed path.
    ///
    /// Claims gained by earlier moves count as held, so a chain of moves in one access is followed; a claim
    /// that a held claim on the same path already covers is not added again. A read of a package does not
    /// follow items moved out of the package.
    ///
    /// Apple allows the call only inside a write: elsewhere it is ``ProtocolViolation/moveOutsideWriteAccess(_:)``.
    /// Moving an item onto itself is a no-op. Scans all waiting requests once: a rare event.
    public mutating func itemMoved(
        _ request: RequestID, from client: ClientID, at oldPath: ItemPath, to newPath: ItemPath
    )
        -> [ArbiterAction]
    {
        guard let mover = requests[request] else { return [] }
        guard mover.client == client else { return [.failClient(client, .requestOfAnotherClient(request))] }
        guard mover.isGranted, mover.intents.contains(where: { $0.intent.isWrite }) else {
            return [.failClient(client, .moveOutsideWriteAccess(request))]
        }
        guard oldPath != newPath else { return [] }
        var outcome = EventOutcome()

        // Who is told what is decided on the tree as it was before the move.
        var moved: [PresenterID] = []
        if let node = table.node(at: oldPath) {
            moved = table.nodes[node].presenters + table.presenters(below: node)
            moved = moved.compactMap { presenters[$0] }.sorted { $0.sequence < $1.sequence }.map(\.id)
        }
        let formerDirectories = directoryPresenters(containing: oldPath, exceptInside: nil, excluding: mover.purpose)
        let newDirectories = directoryPresenters(containing: newPath, exceptInside: oldPath, excluding: mover.purpose)

        for presenter in moved {
            guard let record = presenters[presenter], let path = record.path,
                let destination = path.movingPrefix(from: oldPath, to: newPath)
            else { continue }
            relocatePresenter(presenter, to: destination)
            if record.purpose != mover.purpose {
                send(.didMove(destination), to: presenter, for: request, about: destination, &outcome)
            }
        }
        for presenter in formerDirectories where !moved.contains(presenter) {
            send(.subitemDidMove(from: oldPath, to: newPath), to: presenter, for: request, about: oldPath, &outcome)
        }
        for presenter in newDirectories where !moved.contains(presenter) {
            send(.subitemDidAppear(newPath), to: presenter, for: request, about: newPath, &outcome)
        }

        movedPaths[request, default: []] += [oldPath, newPath]
        holdMovedClaims(of: request, from: oldPath, to: newPath)
        let waiting = requests.values.filter { !$0.isGranted }.sorted { $0.sequence < $1.sequence }
        for other in waiting {
            moveIntents(of: other.id, from: oldPath, to: newPath)
            outcome.recheck.append(other.id)
        }
        settle(&outcome)
        return outcome.actions
    }

    /// Presenters (other than of `purpose`) of the directories strictly containing `path`, nearest first,
    /// skipping directories that also contain `exceptInside`.
    func directoryPresenters(containing path: ItemPath, exceptInside other: ItemPath?, excluding purpose: PurposeID)
        -> [PresenterID]
    {
        guard path.depth > 0 else { return [] }
        var found: [PresenterID] = []
        for depth in stride(from: path.depth - 1, through: 0, by: -1) {
            let directory = path.prefix(depth)
            if let other, directory.isAncestor(of: other) { break }
            guard let node = table.node(at: directory) else { continue }
            found += presenters(at: node, excluding: purpose)
        }
        return found
    }

    /// Files the claims a granted mover gains where the item at `oldPath` went (see ``itemMoved(_:from:at:to:)``).
    mutating func holdMovedClaims(of id: RequestID, from oldPath: ItemPath, to newPath: ItemPath) {
        guard let mover = requests[id] else { return }
        var gained: [AccessIntent] = []
        forEachClaim(of: mover) { _, claimed in
            let held = claimed.intent
            if let moved = held.moved(from: oldPath, to: newPath) { gained.append(moved) }
            let claimedPath = held.claimedPath
            guard let options = held.writingOptions, claimedPath.isAncestor(of: oldPath),
                !newPath.hasPrefix(claimedPath), held.excludesContents || !held.packageRootDepths.isEmpty
            else { return }
            let excluding = held.excludesContents ? options : options.union(.forMoving)
            gained.append(.writing(newPath, options: excluding))
        }
        for intent in gained {
            let claimedPath = intent.claimedPath
            let isWrite = intent.isWrite
            let excludesContents = intent.excludesContents
            var covered = false
            forEachClaim(of: mover) { _, claimed in
                let held = claimed.intent
                if !covered, held.claimedPath == claimedPath, held.isWrite || !isWrite,
                    held.excludesContents || !excludesContents
                {
                    covered = true
                }
            }
            guard !covered else { continue }
            let node = table.makeNode(at: claimedPath)
            let index = mover.intents.count + movedClaims[id, default: []].count
            table.addClaim(claimEntry(id, index, mover.sequence, mover.purpose, intent), at: node)
            movedClaims[id, default: []].append(AccessRequest.ClaimedIntent(intent: intent, node: node))
        }
    }

    /// Rewrites the intents of a waiting request that lie at or inside `oldPath`, refiling their claims.
    mutating func moveIntents(of id: RequestID, from oldPath: ItemPath, to newPath: ItemPath) {
        guard var request = requests[id] else { return }
        var changed = false
        for index in request.intents.indices {
            let claimed = request.intents[index]
            guard !claimed.intent.isReplacing, let intent = claimed.intent.moved(from: oldPath, to: newPath) else {
                continue
            }
            table.removeClaim(of: id, intentIndex: index, at: claimed.node)
            let node = table.makeNode(at: intent.claimedPath)
            table.addClaim(claimEntry(id, index, request.sequence, request.purpose, intent), at: node)
            request.intents[index] = AccessRequest.ClaimedIntent(intent: intent, node: node)
            changed = true
        }
        if changed { requests[id] = request }
    }
}
