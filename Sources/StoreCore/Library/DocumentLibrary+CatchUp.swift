#if canImport(Glibc)
    import Glibc
#endif
import Foundation

extension DocumentLibrary {
    /// How many documents one step of the catch-up reads from the catalog and checks.
    static let catchUpPageSize = 500

    /// Catches up with what changed in the documents' files while nothing watched them (the service was down, or
    /// a directory's watch was lost): in the background, page by page (``catchUpPageSize`` documents a step), the
    /// files of each document that is not open are stat'ed on the thread pool, and a document with a file gone,
    /// or changed after its record (the file's status change time, which no program can set back, later than the
    /// record's last update), is opened, which records the change (`changed`, `deleted`, `conflict`). A node alone
    /// first removes the temporary files of interrupted writes (``removeOrphanedTemporaryFiles()``).
    ///
    /// Memory and each step's work are bounded whatever the store's size; progress is on `/metrics`
    /// (`quire_catch_up_running`, `quire_catch_up_documents_total`, `quire_catch_up_changed_total`). One runs at a
    /// time: a call while one runs makes it run once more when it ends, and returns at once. Returns when done or
    /// when the task is cancelled (at the next step).
    public func catchUp() async {
        let first = catchUpState.withLock { state -> Bool in
            guard !state.running else {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        guard first else { return }
        metrics.catchUpRunning.record(1)
        var again = true
        while again {
            await catchUpOnce()
            again = catchUpState.withLock { state -> Bool in
                guard state.again, !Task.isCancelled else {
                    state.running = false
                    state.again = false
                    return false
                }
                state.again = false
                return true
            }
        }
        metrics.catchUpRunning.record(0)
    }

    private func catchUpOnce() async {
        // In a cluster another node's write in flight has such a file: only a node alone may remove them.
        if configuration.database == nil { await removeOrphanedTemporaryFiles() }
        var listing = DocumentListing(limit: Self.catchUpPageSize)
        var checked = 0
        var changed = 0
        while !Task.isCancelled {
            let page: DocumentPage
            do {
                page = try await catalog.documents(listing)
            } catch {
                logger.warning(
                    "the catch-up with the documents' files stopped: the catalog cannot be read",
                    metadata: ["error": "\(error)", "checked": "\(checked)"])
                return
            }
            let candidates = page.documents.filter { record in
                record.state != .deleted && state.withLock { $0.open[record.id] == nil }
            }
            let suspects = (try? await blocking { candidates.filter(Self.filesChanged(after:)) }) ?? []
            checked += page.documents.count
            metrics.catchUpDocuments.increment(by: page.documents.count)
            for record in suspects where !Task.isCancelled {
                guard await recordsObservedChanges(of: record.id) else { continue }
                let opened = try? await lane(record.id).run { try await self.openDocument(record.id, password: nil) }
                if opened != nil {
                    changed += 1
                    metrics.catchUpChanged.increment()
                }
            }
            guard let next = page.next else { break }
            listing.after = next
        }
        if changed > 0 || checked > 0 {
            logger.info(
                "caught up with the documents' files",
                metadata: ["checked": "\(checked)", "changed": "\(changed)", "cancelled": "\(Task.isCancelled)"])
        }
    }

    /// Whether a file of `record` is gone or changed after the record's last update (its status change time is
    /// later). Blocking: call on the thread pool. A hint only: opening the document decides what changed.
    static func filesChanged(after record: DocumentRecord) -> Bool {
        let updated = record.updatedAt.catalogMilliseconds
        return record.files.contains { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return true }
            let changed = Int64(info.st_ctim.tv_sec) * 1_000 + Int64(info.st_ctim.tv_nsec) / 1_000_000
            return changed > updated
        }
    }
}
