import DocumentModel
import Foundation

extension DocumentLibrary {
    /// Records an event (with the record's change in the same transaction, if any) and hands it to the feed.
    @discardableResult
    func record(
        _ type: StoreEvent.EventType, _ record: DocumentRecord, extra: [String: String] = [:], update: Bool = true
    ) async -> StoreEvent? {
        let event = StoreEvent(
            type: type, documentID: record.id, etag: record.etag, extra: extra, node: recordingNode)
        invalidateInfo(record.id)
        do {
            let recorded = update ? try await catalog.update(record, recording: event) : try await catalog.append(event)
            if let recorded {
                metrics.recordEvent(type)
                fanOut.committed(recorded)
            }
            await updateConflictGauge()
            return recorded
        } catch {
            logger.error(
                "cannot record a \(type.rawValue) event", metadata: ["document": "\(record.id)", "error": "\(error)"])
            return nil
        }
    }

    /// Brings the catalog up to date with a document just opened: files that changed or vanished while it was
    /// not open give their event now.
    func reconcile(
        _ open: OpenDocument, with record: DocumentRecord, files: [(path: String, size: Int, tag: EntityTag?)]
    )
        async
    {
        if files.contains(where: { $0.tag == nil }) {
            guard record.state != .deleted else { return }
            var updated = Self.updated(record, from: open, files: files)
            updated.state = .deleted
            updated.etag = record.etag
            let missing = files.first { $0.tag == nil }?.path ?? ""
            await self.record(.deleted, updated, extra: ["file": missing])
            return
        }
        let updated = Self.updated(record, from: open, files: files, keepingOwnersState: isClusterNode)
        if updated.state == .damaged, record.state != .damaged, let damage = open.damage {
            await self.record(.damaged, updated, extra: ["file": damage.file, "reason": damage.reason])
        } else if updated.etag != record.etag || (record.state == .damaged && updated.state != .damaged) {
            await self.record(.changed, updated)
        } else if updated.state != record.state || updated.pageCount != record.pageCount
            || updated.title != record.title || updated.files != record.files
        {
            open.invalidateInfo()
            _ = try? await catalog.update(updated)
        }
    }

    /// One external change of one of an open document's files (the document has already reloaded, or is now
    /// in conflict).
    func fileChanged(_ open: OpenDocument, _ change: UnderlyingFileChange) async {
        if open.hasTransientFailure {
            // No worker was free to read the new version: the document is dropped (watched while dormant) and
            // opened again by the next request, which records the change then.
            logger.warning(
                "no PDF worker was free to reload a changed file; the document is opened again when next asked for",
                metadata: ["document": "\(open.id)", "file": "\(change.fileURL.path)"])
            forget(open.id)
            watchDormant(open.id, paths: open.providers.map(\.fileURL.path))
            return
        }
        // The document reloaded: its cached answers are stale even when no event follows (in a cluster, another
        // node may have recorded this change already).
        open.invalidateInfo()
        await recordObservedChange(of: open, path: change.fileURL.path, isDeletion: change.isDeletion)
    }

    /// Records what one change of the file at `path` (a deletion, or anything else) did to an open document that
    /// has already reloaded it (or is now in conflict, or damaged): the event, if the record says otherwise. Call
    /// inside the document's lane.
    func recordObservedChange(of open: OpenDocument, path: String, isDeletion: Bool) async {
        // In a cluster the owner records it (its own watchers see it too).
        guard await recordsObservedChanges(of: open.id, insideLane: true) else { return }
        guard let record = try? await catalog.document(open.id) else { return }
        let files = (try? await blocking { open.measureFiles() }) ?? open.files
        var updated = Self.updated(record, from: open, files: files, keepingOwnersState: isClusterNode)
        if isDeletion {
            guard record.state != .deleted else { return }  // told twice of one deletion
            updated.etag = record.etag
            updated.state = .deleted
            await self.record(.deleted, updated, extra: ["file": path])
        } else if case .conflict(let type) = updated.state {
            updated.etag = record.etag  // the document still holds the version its edits were made on
            if record.state != updated.state {
                await self.record(.conflict, updated, extra: ["conflict": type.rawValue, "file": path])
            }
        } else if updated.state == .damaged, let damage = open.damage {
            if record.state != .damaged || updated.etag != record.etag {
                await self.record(.damaged, updated, extra: ["file": damage.file, "reason": damage.reason])
            }
        } else if updated.state != .deleted,
            updated.etag != record.etag || record.state == .deleted || record.state == .damaged
        {
            // (A document still in a deletion conflict, its edits kept, has not changed: its file came back but
            // its edits were made on the deleted one.)
            await self.record(.changed, updated, extra: ["file": path])
        }
    }

    /// A file of an open document moved (the provider follows it).
    func fileMoved(_ open: OpenDocument, from: URL, to: URL) async {
        guard await recordsObservedChanges(of: open.id, insideLane: true) else { return }
        await recordMove(open.id, from: from, to: to) { _ in open.providers.map(\.fileURL.path) }
    }

    /// Records a move of one of document `id`'s files: the record takes the files `files` gives for its old
    /// ones, with a `moved` event, unless they are unchanged.
    func recordMove(_ id: DocumentID, from: URL, to: URL, files: ([String]) -> [String]) async {
        guard let record = try? await catalog.document(id) else { return }
        var updated = record
        updated.files = files(record.files)
        updated.updatedAt = Date()
        guard updated.files != record.files else { return }
        await self.record(.moved, updated, extra: ["from": from.path, "to": to.path])
    }

    /// Forgets the cached info of an open document (its document or record is changing).
    func invalidateInfo(_ id: DocumentID) {
        state.withLock { $0.open[id] }?.invalidateInfo()
    }

    /// Sets the conflicts gauge from the open documents.
    func updateConflictGauge() async {
        let count = state.withLock { state in
            state.open.values.filter { $0.document.conflict != nil }.count
        }
        metrics.conflicts.record(count)
    }
}
