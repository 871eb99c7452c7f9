extension Arbiter {
    /// A client registered a presenter (or registered it again: then its path, purpose and flag are updated).
    ///
    /// - Parameters:
    ///   - path: the presented item, or nil while the presenter presents none (it then gets no message).
    ///   - purpose: the purpose of coordinators made with this presenter; they never message it.
    ///   - observesUncoordinatedChanges: Quire's extension, kept for the snapshot only.
    ///
    /// A presenter registered while a round is in progress is not asked by that round.
    public mutating func presenterRegistered(
        _ presenter: PresenterID, client: ClientID, purpose: PurposeID, path: ItemPath?,
        observesUncoordinatedChanges: Bool = false
    ) -> [ArbiterAction] {
        if let existing = presenters[presenter] {
            guard existing.client == client else { return [.failClient(client, .presenterOfAnotherClient(presenter))] }
            presenters[presenter]?.purpose = purpose
            presenters[presenter]?.observesUncoordinatedChanges = observesUncoordinatedChanges
            relocatePresenter(presenter, to: path)
            return []
        }
        presenters[presenter] = PresenterRecord(
            id: presenter, client: client, purpose: purpose, path: nil, node: nil,
            observesUncoordinatedChanges: observesUncoordinatedChanges, sequence: nextSequence)
        nextSequence += 1
        relocatePresenter(presenter, to: path)
        return []
    }

    /// A presenter's item is now at `path` (the host re-read `presentedItemURL`); no message is sent.
    ///
    /// Ignored for an unknown presenter (it raced with its removal).
    public mutating func presenterMoved(_ presenter: PresenterID, from client: ClientID, to path: ItemPath?)
        -> [ArbiterAction]
    {
        guard let record = presenters[presenter] else { return [] }
        guard record.client == client else { return [.failClient(client, .presenterOfAnotherClient(presenter))] }
        relocatePresenter(presenter, to: path)
        return []
    }

    /// A client unregistered a presenter: it gets no further message, and replies it owed count as given.
    ///
    /// Ignored for an unknown presenter (removing twice is harmless).
    public mutating func presenterRemoved(_ presenter: PresenterID, from client: ClientID) -> [ArbiterAction] {
        guard let record = presenters[presenter] else { return [] }
        guard record.client == client else { return [.failClient(client, .presenterOfAnotherClient(presenter))] }
        var outcome = EventOutcome()
        removePresenter(presenter, &outcome)
        settle(&outcome)
        return outcome.actions
    }

    /// A presenter answered message `message`; `failure` is the error it passed to its completion handler.
    ///
    /// A reply for a message the arbiter never issued, or from a client the message was not sent to, is a
    /// ``ProtocolViolation``. A reply for a message no longer awaited (a notification, a duplicate, or a reply
    /// after the request was cancelled, timed out or failed) is ignored.
    public mutating func presenterReplied(_ message: MessageID, from client: ClientID, failure: PresenterFailure? = nil)
        -> [ArbiterAction]
    {
        guard message.rawValue > 0, message.rawValue < nextMessage else {
            return [.failClient(client, .unknownMessage(message))]
        }
        guard let pending = pendingReplies[message] else { return [] }
        guard pending.client == client else { return [.failClient(client, .replyFromWrongClient(message))] }
        var outcome = EventOutcome()
        resolveReply(message, failure: failure, &outcome)
        settle(&outcome)
        return outcome.actions
    }

    /// A client is gone: its granted accesses end, its waiting requests vanish, its presenters are removed.
    ///
    /// Granted accesses end as with ``accessEnded(_:from:presence:)`` (other presenters get `didChange` for writes and
    /// their reacquire). Waiting requests are dropped without a ``ArbiterAction/fail(_:_:_:)`` (nobody is
    /// left to tell), their timers are cancelled and the presenters they had asked to relinquish reacquire.
    /// Rounds waiting on replies from the client's presenters go on as if those had replied without error.
    /// Scans all requests and presenters once: a rare event.
    public mutating func clientDisconnected(_ client: ClientID) -> [ArbiterAction] {
        if declaredPackageExtensions.removeValue(forKey: client) != nil {
            agreedPackageExtensions = declaredPackageExtensions.values.reduce(into: []) { $0.formUnion($1) }
        }
        var outcome = EventOutcome()
        // Detach the presenters first, so that nothing below messages them, and resolve what they owed last,
        // so that no round grants one of the client's own requests on the way out.
        let presentersOwned = presenters.values.filter { $0.client == client }.map(\.id)
        for presenter in presentersOwned {
            relocatePresenter(presenter, to: nil)
            presenters[presenter] = nil
        }
        let owned = requests.values.filter { $0.client == client }.sorted { $0.sequence < $1.sequence }
        for request in owned {
            if request.isGranted {
                finishAccess(request.id, &outcome)
            } else {
                abandon(request.id, failure: nil, &outcome)
            }
        }
        let owed = pendingReplies.filter { $0.value.client == client }.map(\.key).sorted()
        for message in owed {
            resolveReply(message, failure: nil, &outcome)
        }
        settle(&outcome)
        return outcome.actions
    }

    /// Unregisters a presenter and counts the replies it owed as given.
    mutating func removePresenter(_ presenter: PresenterID, _ outcome: inout EventOutcome) {
        relocatePresenter(presenter, to: nil)
        presenters[presenter] = nil
        let owed = pendingReplies.filter { $0.value.presenter == presenter }.map(\.key).sorted()
        for message in owed {
            resolveReply(message, failure: nil, &outcome)
        }
    }

    /// Files a presenter under a new path (or under none).
    mutating func relocatePresenter(_ presenter: PresenterID, to path: ItemPath?) {
        guard let record = presenters[presenter] else { return }
        if record.path == path, record.node != nil || path == nil { return }
        if let node = record.node { table.removePresenter(presenter, at: node) }
        var node: Int?
        if let path {
            let created = table.makeNode(at: path)
            table.addPresenter(presenter, at: created)
            node = created
        }
        presenters[presenter]?.path = path
        presenters[presenter]?.node = node
    }
}

extension Arbiter {
    /// A client's process treats directories with these extensions (lowercase, without the dot) as file packages.
    ///
    /// Every client's later requests treat them so too: the arbiter adds the package roots their paths pass
    /// through (``AccessIntent/withPackages(_:)``) to those the client computed, so that a writer in a process
    /// that does not know an extension still messages a package's presenters as a write of the package, as on
    /// Apple platforms, where every process knows the same packages. A later declaration of the client replaces
    /// its earlier one; its disconnection withdraws it. Requests already made keep their intents.
    public mutating func packageExtensionsDeclared(_ extensions: Set<String>, by client: ClientID) -> [ArbiterAction] {
        declaredPackageExtensions[client] = extensions.isEmpty ? nil : extensions
        agreedPackageExtensions = declaredPackageExtensions.values.reduce(into: []) { $0.formUnion($1) }
        return []
    }
}
