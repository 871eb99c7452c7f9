import DocumentModel
import FileCoordination
import Foundation

extension DocumentLibrary {
    /// The versions kept of a document's files in the store's versions store (``versionStore``, `<store>/versions`):
    /// the sides that conflict resolutions dropped, oldest first, then by file.
    ///
    /// A document's history is its content: an encrypted document's versions need its password (user or owner), as
    /// its content does. A document whose files open says whether it is encrypted (it is opened, and the password
    /// checked, as for any read); one whose files are gone or do not open cannot tell, so the newest kept version
    /// is tried with the password in a PDF worker.
    /// - Throws: ``StoreError/documentNotFound(_:)`` for an unknown document; ``StoreError/passwordRequired(what:wrongPassword:)``
    ///   for an encrypted document without its password or with a wrong one; the versions store's error when it
    ///   cannot be read.
    public func versions(_ id: DocumentID, password: String?) async throws -> [KeptVersion] {
        let record = try await record(id)
        let listed = try await blocking { try self.storedVersions(of: record.files) }
        var told = false
        if record.state != .deleted || state.withLock({ $0.open[id] != nil }) {
            let open = try await lane(id).run { try await openDocument(id, password: password) }
            told = open.document.errors.isEmpty
        }
        if !told, let newest = listed.last {
            let url = newest.version.url
            let bytes = try? await blocking {
                try FileDataProvider(fileURL: url, confinement: self.versionConfinement).data()
            }
            do {
                if let bytes { try await vet(bytes, password: password, what: "document \(id.rawValue)") }
            } catch let error as StoreError {
                if error.code == .passwordRequired { throw error }
                // A version that does not open at all (or no worker to try it) says nothing of a password.
            }
        }
        return listed.map { KeptVersion(version: $0.version, size: $0.size) }
    }

    /// Restores version `versionID` of one of the document's files: its bytes (read beneath the versions store)
    /// are checked in a PDF worker, then written over the file as a save writes it (a sink beside the file,
    /// renamed over it inside a coordinated write, through the file's confinement), and the document reloads that
    /// file, dropping its unsaved edits as a content replacement does. A `changed` event follows, naming the file
    /// and the version. The version stays in the store.
    /// - Throws: ``StoreError``: `documentNotFound` or `versionNotFound`; `preconditionRequired`/`preconditionFailed`
    ///   (`precondition`); `inConflict`; `damagedPDF`/`passwordRequired` for bytes that do not open; the file's or
    ///   the versions store's error when the version or the file cannot be read or written.
    public func restoreVersion(
        _ id: DocumentID, version versionID: String, precondition: WritePrecondition, password: String?
    ) async throws -> (DocumentInfo, EntityTag) {
        try await lane(id).run {
            let record = try await record(id)
            try precondition.require(current: record.validator)
            let open = try await openDocument(id, password: password)
            if open.document.conflict != nil || record.state == .deleted {
                throw StoreError.inConflict(id, reason: "resolve its conflict before restoring a version")
            }
            let providers = open.providers
            let found = try await blocking { () throws -> (CoordinatedFileDataProvider, Data)? in
                for provider in providers {
                    let versions = try self.versionStore.versions(ofItemAt: provider.fileURL)
                    guard let version = versions.first(where: { $0.id == versionID }) else { continue }
                    // The version's bytes, opened beneath the versions store through no symbolic link.
                    let bytes = try FileDataProvider(fileURL: version.url, confinement: self.versionConfinement).data()
                    return (provider, bytes)
                }
                return nil
            }
            guard let (provider, bytes) = found else { throw StoreError.versionNotFound(id, version: versionID) }
            try await vet(bytes, password: password, what: "version \(versionID)")
            let document = open.document
            try await blocking {
                let sink = try provider.createDataSink(options: [])
                guard sink.writeData(bytes), sink.finish() else {
                    throw (sink as? FileDataSink)?.failure ?? DataProviderError.sinkFailed("the sink refused the bytes")
                }
                try provider.replaceContents(with: sink)
                try document.resolveFileConflict(for: provider, with: .reload)
            }
            let files = try await blocking { open.measureFiles() }
            await self.record(
                .changed, Self.updated(record, from: open, files: files),
                extra: ["file": provider.fileURL.path, "restoredVersion": versionID])
            return try await info(of: open)
        }
    }

    /// The stored versions of `paths`, with the size of each one's contents, oldest first. Blocking.
    func storedVersions(of paths: [String]) throws -> [(version: FileVersion, size: Int)] {
        var found: [(version: FileVersion, size: Int)] = []
        for path in paths {
            for version in try versionStore.versions(ofItemAt: URL(fileURLWithPath: path)) {
                let attributes = try? FileManager.default.attributesOfItem(atPath: version.url.path)
                found.append((version, (attributes?[.size] as? Int) ?? 0))
            }
        }
        return found.sorted {
            ($0.version.modificationDate ?? .distantPast, $0.version.itemURL.path, $0.version.id)
                < ($1.version.modificationDate ?? .distantPast, $1.version.itemURL.path, $1.version.id)
        }
    }
}
