import DocumentModel
import Foundation
import PDFTypes

extension DocumentLibrary {
    /// A merge patch of the metadata (RFC 7396): members present are set, null clears, absent stay.
    public struct MetadataPatch: Sendable {
        /// Each member: nil = absent; `.some(nil)` = null (clear); `.some(value)` = set.
        public var title, author, subject, keywords, creator, producer: String??
        /// The dates, same convention.
        public var creationDate, modificationDate: Date??

        /// An empty patch.
        public init() {}
    }

    /// Replaces the content of a one-file document atomically with the finished file at `file` (written and
    /// synced by the caller, on the store's file system, as ``incomingDirectory`` is), renamed over the document's
    /// file inside a coordinated write; drops unsaved edits. The catalog is read once, and the new bytes are read
    /// once and hashed once (what the worker checks, the document opens and the tag is computed from). On failure
    /// the file is removed, or stays where it was for the caller to remove.
    /// - Throws: ``StoreError``: `documentNotFound`; `preconditionRequired`/`preconditionFailed` (`precondition`);
    ///   `invalidParameter` for a document of several files; `inConflict`; `damagedPDF`/`passwordRequired` for
    ///   bytes that do not open; a `DataProviderError` when the file cannot be read or moved.
    public func replaceContent(
        _ id: DocumentID, withFileAt file: URL, precondition: WritePrecondition, password: String?
    ) async throws -> (DocumentInfo, EntityTag) {
        try await lane(id).run {
            let open = try await openDocument(id, password: password)
            let record = try await record(id)
            try precondition.require(current: record.validator)
            guard open.providers.count == 1, let provider = open.providers.first else {
                throw StoreError.invalidParameter(
                    "id",
                    reason: "document \(id.rawValue) is made of \(open.providers.count) files: replace them one by one")
            }
            if open.document.conflict?.type == .modification {
                throw StoreError.inConflict(id, reason: "resolve its conflict before replacing its content")
            }
            let document = open.document
            // Through a node that does not hold the edits (a cluster's other node), this is a write by another
            // party: the owner's edits now conflict with it, and the owner says so.
            let heldEdits = document.hasUnsavedChanges || document.conflict != nil
            let sink = try await vettedSink(adopting: file, for: provider, password: password, what: "the new content")
            try await blocking {
                try provider.replaceContents(with: sink)
                try document.resolveFileConflict(for: provider, with: .reload)
            }
            let files = try await blocking { open.measureFiles() }
            var stored = Self.updated(record, from: open, files: files, keepingOwnersState: isClusterNode && !heldEdits)
            let recorded = await self.record(.changed, stored, extra: ["file": provider.fileURL.path])
            // The catalog stored this record at the event's version (in this lane, under the document's lock): the
            // answer needs no read of it back. Without the event (it could not be recorded), the catalog says.
            guard let version = recorded?.version else { return try await info(of: open) }
            stored.version = version
            return try await info(of: open, known: stored)
        }
    }

    /// Removes a document: an uploaded document's file is deleted inside a coordinated `.forDeleting` write; a
    /// registered document's files stay. A `deleted` event follows.
    /// - Throws: ``StoreError``: `documentNotFound`; `preconditionRequired`/`preconditionFailed` (`precondition`).
    public func delete(_ id: DocumentID, precondition: WritePrecondition) async throws {
        try await lane(id).run {
            let record = try await record(id)
            try precondition.require(current: record.validator)
            forget(id)
            if record.origin == .upload, let path = record.files.first { try await removeUploadedFile(path) }
            let event = StoreEvent(type: .deleted, documentID: id, etag: record.etag, node: recordingNode)
            if let recorded = try await catalog.deleteDocument(id, recording: event) {
                metrics.recordEvent(.deleted)
                fanOut.committed(recorded)
            }
            await updateConflictGauge()
        }
    }

    /// Applies a metadata patch in memory (the document becomes dirty).
    /// - Throws: ``StoreError``: `documentNotFound`, `passwordRequired`, `preconditionFailed` (a `precondition` that
    ///   names a version that is not the current one), `inConflict`.
    public func updateMetadata(
        _ id: DocumentID, _ patch: MetadataPatch, precondition: WritePrecondition, password: String?
    ) async throws -> (DocumentInfo, EntityTag) {
        try await edit(id, precondition: precondition, password: password) { document in
            var metadata = document.metadata
            if let value = patch.title { metadata.title = value }
            if let value = patch.author { metadata.author = value }
            if let value = patch.subject { metadata.subject = value }
            if let value = patch.keywords { metadata.keywords = value }
            if let value = patch.creator { metadata.creator = value }
            if let value = patch.producer { metadata.producer = value }
            if let value = patch.creationDate { metadata.creationDate = value }
            if let value = patch.modificationDate { metadata.modificationDate = value }
            try document.setMetadata(metadata)
        }
    }

    /// Adds a note or a highlight in memory (the document becomes dirty).
    /// - Throws: ``StoreError``: `documentNotFound`, `pageOutOfRange`, `passwordRequired`, `preconditionFailed`,
    ///   `inConflict`, `invalidParameter` for an unusable kind or rectangle (not finite, a width or height not above
    ///   0, or not inside the page).
    public func addAnnotation(
        _ id: DocumentID, _ request: NewAnnotation, precondition: WritePrecondition,
        password: String?
    ) async throws -> (DocumentInfo, EntityTag) {
        let kind: Annotation.Kind
        switch request.kind {
        case "note": kind = .note
        case "highlight": kind = .highlight
        default: throw StoreError.invalidParameter("kind", reason: "kind must be \"note\" or \"highlight\"")
        }
        let rect = try Self.annotationRect(request)
        guard request.page >= 1 else {
            throw StoreError.invalidParameter("page", reason: "page numbers start at 1, not \(request.page)")
        }
        return try await edit(id, precondition: precondition, password: password) { document in
            guard request.page <= document.pageCount else {
                throw StoreError.pageOutOfRange(request.page, pageCount: document.pageCount)
            }
            let size = try document.pageInfo(at: request.page - 1).size
            let slack = 0.001
            guard rect.minX >= -slack, rect.minY >= -slack, rect.maxX <= size.width + slack,
                rect.maxY <= size.height + slack
            else {
                throw StoreError.invalidParameter(
                    "rect",
                    reason: "rect (x \(rect.minX), y \(rect.minY), width \(rect.width), height \(rect.height)) is not "
                        + "inside page \(request.page), which is \(size.width) by \(size.height) points from (0, 0)")
            }
            do {
                try document.addAnnotation(
                    Annotation(kind: kind, rect: rect, contents: request.contents ?? ""), toPageAt: request.page - 1)
            } catch let error as DocumentError {
                throw StoreError.invalidParameter("rect", reason: error.description)
            }
        }
    }

    /// The rectangle of a new annotation: finite, within a million points, with a width and height above
    /// zero as given (a `CGRect` would take a negative size and flip it).
    /// - Throws: ``StoreError/invalidParameter(_:reason:)`` naming the member at fault (`rect.x`, `rect.y`, `rect.width`, `rect.height`).
    static func annotationRect(_ annotation: NewAnnotation) throws -> CGRect {
        for (name, value) in [
            ("rect.x", annotation.x), ("rect.y", annotation.y), ("rect.width", annotation.width),
            ("rect.height", annotation.height),
        ] {
            guard value.isFinite, abs(value) < 1e6 else {
                throw StoreError.invalidParameter(
                    name, reason: "member \"\(name)\" must be a finite number of points below 1000000, not \(value)")
            }
        }
        for (name, value) in [("rect.width", annotation.width), ("rect.height", annotation.height)] where !(value > 0) {
            throw StoreError.invalidParameter(
                name,
                reason: "member \"\(name)\" must be above 0, not \(value): x and y name the lower-left corner of the "
                    + "rectangle")
        }
        return CGRect(x: annotation.x, y: annotation.y, width: annotation.width, height: annotation.height)
    }

    /// Writes the edits to the files (coordinated, atomic). A `saved` event follows.
    /// - Throws: ``StoreError``: `documentNotFound`; `preconditionRequired`/`preconditionFailed`; `passwordRequired`
    ///   for an encrypted document without its password or with a wrong one; `inConflict`; `pdfWorkFailed` or
    ///   `internalFailure` when the save fails.
    public func save(_ id: DocumentID, precondition: WritePrecondition, password: String?) async throws -> (
        DocumentInfo, EntityTag
    ) {
        try await lane(id).run {
            let wasOpen = state.withLock { $0.open[id] != nil }
            // The password first: without it a client learns nothing, not even that its version is stale.
            let open = try await openDocument(id, password: password)
            let record = try await record(id)
            try precondition.require(current: record.validator)
            // Not open before: nothing in memory to save.
            guard wasOpen else { return try await info(of: open) }
            if open.document.conflict != nil {
                throw StoreError.inConflict(id, reason: "resolve its conflict (reload, save or close) instead")
            }
            let document = open.document
            try await blocking {
                do {
                    try document.save()
                } catch {
                    if let work = Self.workFailure(error) {
                        throw StoreError.pdfWork(work, work: "saving document \(id.rawValue)")
                    }
                    throw StoreError.internalFailure("saving failed: \(error)")
                }
            }
            let files = try await blocking { open.measureFiles() }
            await self.record(.saved, Self.updated(record, from: open, files: files))
            return try await info(of: open)
        }
    }

    /// The worker failure behind a failed save or reload (a crash, a missed deadline, no worker free), if any.
    static func workFailure(_ error: any Error) -> PDFWorkError? {
        switch error {
        case let work as PDFWorkError: return work
        case DocumentError.saveFailed(_, let underlying), DocumentError.unreadable(_, let underlying):
            return underlying as? PDFWorkError
        default: return nil
        }
    }

    /// Resolves the document's conflict. `close` removes the document from the store (returns nil).
    /// - Throws: ``StoreError``: `documentNotFound`; `passwordRequired` for an encrypted document without its
    ///   password or with a wrong one; `noConflict`; `inConflict` for `reload` of a deleted file; `fileNotRemoved`
    ///   when `close` cannot remove an uploaded file; `preconditionFailed` when `precondition` names a version that
    ///   is not the current one (it may name none).
    public func resolve(
        _ id: DocumentID, with resolution: FileConflictResolution, precondition: WritePrecondition = .none,
        password: String?
    ) async throws
        -> (DocumentInfo, EntityTag)?
    {
        try await lane(id).run { () async throws -> (DocumentInfo, EntityTag)? in
            let record = try await record(id)
            try precondition.check(current: record.validator)
            let open = try await openDocument(id, password: password)
            let document = open.document
            let inConflict = document.conflict != nil || record.state == .deleted || record.state.conflictType != nil
            guard inConflict else { throw StoreError.noConflict(id) }
            let provider = document.conflict?.dataProvider ?? open.providers[0]
            switch resolution {
            case .close:
                forget(id)
                if record.origin == .upload, let path = record.files.first {
                    do {
                        try await removeUploadedFile(path)
                    } catch {
                        watchDormant(id, paths: record.files)
                        throw StoreError.fileNotRemoved(id, reason: "\(error)")
                    }
                }
                let event = StoreEvent(
                    type: .resolved, documentID: id, etag: record.etag, extra: ["resolution": "close"],
                    node: recordingNode)
                if let recorded = try await catalog.deleteDocument(id, recording: event) {
                    metrics.recordEvent(.resolved)
                    fanOut.committed(recorded)
                }
                await updateConflictGauge()
                return nil
            case .reload, .save:
                try await blocking {
                    do {
                        try document.resolveFileConflict(for: provider, with: resolution)
                    } catch let error as DocumentError {
                        if let work = Self.workFailure(error) {
                            throw StoreError.pdfWork(work, work: "saving document \(id.rawValue)")
                        }
                        if case .fileNotFound = error {
                            throw StoreError.inConflict(
                                id, reason: "its file was deleted and cannot be reloaded: resolve with save or close")
                        }
                        throw StoreError.inConflict(id, reason: error.description)
                    }
                }
                let files = try await blocking { open.measureFiles() }
                await self.record(
                    .resolved, Self.updated(record, from: open, files: files),
                    extra: ["resolution": resolution.rawValue])
                return try await info(of: open)
            }
        }
    }

    /// Deletes an uploaded document's file inside a coordinated `.forDeleting` write; a file already gone is fine.
    /// - Throws: the provider's error when the file cannot be removed.
    private func removeUploadedFile(_ path: String) async throws {
        try await blocking {
            do {
                try self.providers(for: [path])[0].deleteData()
            } catch let error as DataProviderError where error.isFileMissing {}
        }
    }

    /// Runs an edit on the open document inside its lane, after checking the precondition when it names a version
    /// (``WritePrecondition/check(current:)``).
    private func edit(
        _ id: DocumentID, precondition: WritePrecondition, password: String?,
        _ body: @escaping @Sendable (Document) throws -> Void
    ) async throws -> (DocumentInfo, EntityTag) {
        try await lane(id).run {
            let open = try await openDocument(id, password: password)
            let record = try await record(id)
            try precondition.check(current: record.validator)
            if open.document.conflict != nil || record.state == .deleted {
                throw StoreError.inConflict(id, reason: "resolve its conflict before editing it")
            }
            let document = open.document
            open.invalidateInfo()
            try await blocking { try body(document) }
            var updated = record
            updated.state = Self.state(of: document)
            updated.title = Self.listedTitle(of: document)
            updated.updatedAt = Date()
            _ = try await catalog.update(updated)
            return try await info(of: open)
        }
    }
}
