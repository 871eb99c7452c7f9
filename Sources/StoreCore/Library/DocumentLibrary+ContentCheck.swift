import DocumentModel
import Foundation

extension DocumentLibrary {
    /// Checks the documents' files every ``StoreConfiguration/contentCheckInterval`` until the task is cancelled;
    /// returns at once when the interval is nil (the default).
    func runContentChecks() async {
        guard let interval = configuration.contentCheckInterval else { return }
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            let changed = await checkContents()
            if changed > 0 {
                logger.notice("the content check found changed files", metadata: ["documents": "\(changed)"])
            }
        }
    }

    /// Reads the files of every document this node owns (one node: every document) and compares them with what
    /// the node knows of them: the bytes an open document last read, else the catalog's tag. A document whose
    /// files differ is told as a watcher would tell it: an open one reloads (or, with unsaved edits, goes into
    /// conflict) and a deleted file is a deletion; one that is not open is opened, which records the change. So a
    /// change no inotify or coordination saw (another host's write on a network file system) is recorded within
    /// one interval, once (under the document's lock, against the shared catalog).
    /// - Returns: How many documents were found changed.
    @discardableResult
    package func checkContents() async -> Int {
        // Page by page: a large store is never read into memory at once.
        var listing = DocumentListing(limit: Self.catchUpPageSize)
        var changed = 0
        while !Task.isCancelled, let page = try? await catalog.documents(listing) {
            for record in page.documents where record.state != .deleted {
                if Task.isCancelled { break }
                guard case .this = try? await owner(of: record.id) else { continue }
                if await check(record) { changed += 1 }
            }
            guard let next = page.next else { break }
            listing.after = next
        }
        return changed
    }

    /// Compares one document's files with what the node knows of them, and tells the document of a difference.
    /// - Returns: Whether the files differed.
    private func check(_ record: DocumentRecord) async -> Bool {
        let id = record.id
        let result = try? await lane(id).run { () async throws -> Bool in
            let current = try await blocking { self.measure(record.files) }
            guard let open = state.withLock({ $0.open[id] }) else {
                guard OpenDocument.tag(of: current) != record.etag else { return false }
                _ = try await openDocument(id, password: nil)  // reconciles: records the change
                return true
            }
            let known = open.files
            let differing = open.providers.indices.filter { index in
                index >= known.count || index >= current.count || known[index].tag != current[index].tag
            }
            guard !differing.isEmpty else { return false }
            let document = open.document
            let providers = open.providers
            try await blocking {
                for index in differing where index < providers.count {
                    if index < current.count, current[index].tag == nil {
                        document.accommodatePresentedItemDeletion(for: providers[index]) { _ in }
                    } else {
                        document.presentedItemDidChange(for: providers[index])
                    }
                }
            }
            return true
        }
        return result ?? false
    }

    /// The files at `paths` as they are now: size and tag of their bytes, read beneath their confinement (nil
    /// tag for a file that cannot be read: gone, or no longer a regular file).
    private func measure(_ paths: [String]) -> [(path: String, size: Int, tag: EntityTag?)] {
        paths.map { path in
            let provider = FileDataProvider(fileURL: URL(fileURLWithPath: path), confinement: confinement(for: path))
            guard let bytes = try? provider.data() else { return (path, 0, nil) }
            return (path, bytes.count, EntityTag(content: bytes))
        }
    }
}
