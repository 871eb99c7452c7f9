import Foundation

extension DocumentLibrary {
    /// Whether this library is a node of a cluster (documents have owners among several nodes).
    public var isClusterNode: Bool { ownership.isCluster }

    /// The node named in the events this library records (``StoreEvent/node``): this node's id in a cluster, nil
    /// for one node alone.
    var recordingNode: String? { isClusterNode ? membership.id : nil }

    /// Which node owns document `id`: the one that keeps it open with its unsaved edits and its conflict
    /// (``DocumentOwnership``). One node owns every document. In a cluster, a document with no owner or a dead one
    /// (no heartbeat within ``NodeMembership/liveness``) is claimed for this node on the way, and taken in as a
    /// takeover (``takeIn(_:from:)``): opened, which compares its files with the catalog.
    /// - Throws: ``StoreError/unavailable(_:retryAfterSeconds:)`` when the registry cannot be read.
    public func owner(of id: DocumentID) async throws -> DocumentOwner {
        try await owner(of: id, insideLane: false)
    }

    /// ``owner(of:)`` for a caller that may be running in the document's lane (`insideLane`): the takeover's
    /// taking in, which runs in that lane too, is then left to run after the caller's operation instead of being
    /// waited for (a lane is not reentrant: waiting would wait for itself, and the document would answer nothing
    /// on this node again).
    /// - Throws: as ``owner(of:)``.
    func owner(of id: DocumentID, insideLane: Bool) async throws -> DocumentOwner {
        let owner = try await ownership.owner(of: id)
        if case .this(let previous?) = owner {
            metrics.takeovers.increment()
            logger.notice("took over a document from a dead node", metadata: ["document": "\(id)", "from": "\(previous)"])
            if insideLane {
                Task { await self.takeIn(id, from: previous) }
            } else {
                await takeIn(id, from: previous)
            }
        }
        return owner
    }

    /// Whether this node records what its own watchers see of document `id`'s files: always on one node; in a
    /// cluster, when it owns the document (claimed here when it had no owner or a dead one). Every node watches
    /// every document's files, but only the owner turns what it sees into the catalog's record and events, so
    /// that one change gives one event, and the one its owner would give (a write under its unsaved edits is a
    /// conflict, not a change), however many nodes watch. When the registry cannot be read this node records
    /// too: the document's lock and the catalog's comparison keep a change from being recorded twice.
    /// `insideLane`: the caller runs in the document's lane (see ``owner(of:insideLane:)``).
    func recordsObservedChanges(of id: DocumentID, insideLane: Bool = false) async -> Bool {
        guard isClusterNode else { return true }
        guard let owner = try? await owner(of: id, insideLane: insideLane) else { return true }
        if case .this = owner { return true }
        return false
    }

    /// Forgets what this node learned of document `id`'s owner (its node did not answer a forwarded request).
    public func forgetOwner(of id: DocumentID) {
        ownership.forget(id)
    }

    /// Takes in the documents this node's sweep took over from dead nodes (``NodeMembership``).
    func takeIn(_ takeovers: [DocumentTakeover]) async {
        let fromDeadNodes = takeovers.filter { $0.from != nil }
        if !fromDeadNodes.isEmpty {
            metrics.takeovers.increment(by: fromDeadNodes.count)
            logger.notice(
                "took over documents from dead nodes",
                metadata: [
                    "documents": "\(fromDeadNodes.count)",
                    "from": "\(Set(fromDeadNodes.compactMap(\.from)).sorted().joined(separator: ", "))",
                ])
        }
        let previous = Dictionary(takeovers.map { ($0.document, $0.from) }, uniquingKeysWith: { first, _ in first })
        // In bulk: a page of records at a time, and only the documents that need it are opened (the dead owner's
        // edits or conflict, a copy this node holds, or files changed after the record): the others are this
        // node's now without any work, so 100,000 documents change hands in seconds.
        let ids = takeovers.map(\.document)
        for start in stride(from: 0, to: ids.count, by: Self.catchUpPageSize) {
            let chunk = ids[start..<min(ids.count, start + Self.catchUpPageSize)]
            let records: [DocumentRecord]
            do {
                records = try await catalog.documents(ids: chunk.map(\.rawValue))
            } catch {
                logger.warning(
                    "documents taken over were not checked: the catalog cannot be read",
                    metadata: ["documents": "\(chunk.count)", "error": "\(error)"])
                continue
            }
            let held = state.withLock { state in Set(chunk.filter { state.open[$0] != nil }) }
            let candidates = records.filter { $0.state != .deleted }
            let suspects =
                (try? await blocking {
                    candidates.filter { record in
                        record.state == .dirty || record.state.conflictType != nil || held.contains(record.id)
                            || Self.filesChanged(after: record)
                    }
                }) ?? candidates
            for record in suspects {
                ownership.remember(.this(takenOverFrom: nil), of: record.id)
                await takeIn(record.id, from: previous[record.id] ?? nil)
            }
        }
    }

    /// Takes in a document whose owner died (or that had none): it is opened in its lane, which compares its files
    /// with the catalog and records what changed meanwhile (once: under the document's lock, against the shared
    /// catalog). The dead owner's unsaved edits and the conflict it held are lost with it: a record that still
    /// says `dirty` or `conflict` is set to what the files say, without an event.
    private func takeIn(_ id: DocumentID, from previous: String?, attempt: Int = 1) async {
        do {
            try await lane(id).run {
                // A deleted document is not opened. Opening reconciles the record with the files (so it is read
                // again after); what that leaves of the dead node's state is set to what the files say.
                guard let before = try await catalog.document(id), before.state != .deleted else { return }
                // A copy this node still holds with edits or a conflict, while the record no longer says so, is
                // from before another node's takeover (this node was stopped or cut off meanwhile): the record is
                // the truth, and the document opens anew from its files.
                if let held = state.withLock({ $0.open[id] }),
                    held.document.hasUnsavedChanges || held.document.conflict != nil,
                    before.state != .dirty, before.state.conflictType == nil
                {
                    forget(id)
                }
                let open = try await openDocument(id, password: nil)
                let current = Self.state(of: open.document)
                guard var record = try await catalog.document(id),
                    record.state == .dirty || record.state.conflictType != nil, record.state != current
                else { return }
                if let previous {
                    logger.warning(
                        "the unsaved edits or the conflict of a document were lost with the node that owned it",
                        metadata: ["document": "\(id)", "from": "\(previous)", "state": "\(record.state.name)"])
                }
                record.state = current
                open.invalidateInfo()
                _ = try await catalog.update(record)
            }
        } catch {
            // The database went away (the lock, or the record, could not be had): the check of a copy held from
            // before the takeover has not run, and must, or this node answers that copy as the owner's. Again a
            // second later, while this node owns the document, at most a minute.
            if Self.isTransient(error), attempt < Self.takeInAttempts {
                Task {
                    try? await Task.sleep(for: .seconds(1))
                    guard !self.state.withLock({ $0.isShutDown }),
                        case .this = try? await self.ownership.owner(of: id)
                    else { return }
                    await self.takeIn(id, from: previous, attempt: attempt + 1)
                }
                return
            }
            // An encrypted document opens with its password only: its next request opens it.
            logger.debug("a document taken over did not open", metadata: ["document": "\(id)", "error": "\(error)"])
        }
    }

    /// How many times a takeover's taking in is tried while the database fails (a second apart).
    static let takeInAttempts = 60

    /// Whether `error` says the database could not be reached or the document's lock not had (worth trying again),
    /// rather than something of the document itself.
    static func isTransient(_ error: any Error) -> Bool {
        if error is CatalogError { return true }
        if (error as? StoreError)?.code == .unavailable { return true }
        return false
    }

    /// Whether document `id`'s info is its owner's to give: in a cluster, when another node holds it dirty or in
    /// conflict (its unsaved edits, or its conflict, are in that node's memory), as the catalog says now. A copy
    /// this node holds of an older version than the record's is brought in line first (one query a request: a
    /// cluster's node answers what the catalog holds when the request came, never what it was last told).
    /// - Throws: a `CatalogError` when the catalog cannot be read.
    public func infoNeedsOwner(_ id: DocumentID) async throws -> Bool {
        guard isClusterNode else { return false }
        await dropCopyIfOwnedElsewhere(id, askingTheRegistry: false)
        let open = state.withLock { $0.open[id] }
        if let open, open.document.hasUnsavedChanges || open.document.conflict != nil { return false }
        // The record, read now: another node's change may not have been notified yet (a client that wrote through
        // one node reads through another at once). What this node cached of an older version is not answered.
        guard let record = try await catalog.document(id) else { return false }
        if let open, let (info, _) = open.cachedInfo, info.version != record.version {
            open.invalidateInfo()
            await catchUpWithRecord(id)
        }
        return record.state == .dirty || record.state.conflictType != nil
    }

    /// A cluster node that holds document `id` open with unsaved edits or a conflict but no longer owns it
    /// (another node took it over while this one was stopped or cut off) drops its copy: the edits and the
    /// conflict were lost with its ownership, and the new owner's record is the truth. Otherwise it would go on
    /// answering the document's info, text and pages from edits no other node knows of. With `askingTheRegistry`
    /// (told of another node's change), it asks the registry rather than what it remembers of the owner (for at
    /// most ``DocumentOwnership/cacheLifetime``): a request's check does not cost a query.
    func dropCopyIfOwnedElsewhere(_ id: DocumentID, askingTheRegistry: Bool = true) async {
        guard isClusterNode, let open = state.withLock({ $0.open[id] }),
            open.document.hasUnsavedChanges || open.document.conflict != nil
        else { return }
        if askingTheRegistry { forgetOwner(of: id) }
        guard case .other = try? await owner(of: id) else { return }
        logger.warning(
            "another node took over a document this node held with unsaved edits or a conflict: dropped them",
            metadata: ["document": "\(id)"])
        // After what this node runs on the document, but without the cluster's lock: forgetting a local copy
        // changes nothing the nodes share, and must not fail because another node holds the lock or the database
        // is slow (the copy would go on answering).
        let lane = enterLane(id)
        defer { leaveLane(id) }
        _ = try? await lane.run {
            let record = try? await self.catalog.document(id)
            self.forget(id)
            if let record, record.state != .deleted { self.watchDormant(id, paths: record.files) }
        }
    }

    /// Whether node `id` is alive (a heartbeat within ``NodeMembership/liveness``); true when the registry cannot
    /// be read (nothing is taken from a node on the strength of an error).
    public func nodeIsAlive(_ id: String) async -> Bool {
        await ownership.isAlive(id)
    }
}
