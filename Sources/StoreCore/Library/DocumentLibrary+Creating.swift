#if canImport(Glibc)
    import Glibc
#endif
import DocumentModel
import Foundation
import PDFWorkerWire
import PDFTypes
import Synchronization

/// The count of new contents checked by this process: each check's work key (`vet-N`), a document of its own for
/// the pool's fairness, without drawing a UUID from the kernel's random source.
private let vettedCount = Atomic<UInt64>(0)

extension DocumentLibrary {
    /// Stores an uploaded PDF as a new document: the finished file at `file` (written and synced by the caller,
    /// on the store's file system, as ``incomingDirectory`` is) is renamed into `<store>/files` inside a
    /// coordinated write. Its bytes are read once and hashed once: what the worker checks, what the document opens
    /// and what its tag is computed from are those bytes. On failure the file is removed, or stays where it was
    /// for the caller to remove.
    /// - Throws: ``StoreError``: `damagedPDF` for bytes that are not a PDF poppler opens, `passwordRequired` for an
    ///   encrypted one without its password (nothing is kept in either case); a `DataProviderError` when the file
    ///   cannot be read or moved.
    public func upload(fileAt file: URL, password: String?) async throws -> (DocumentInfo, EntityTag) {
        let id = DocumentID.random()
        let url = uploadDirectory.appendingPathComponent("\(id.rawValue).pdf")
        let provider = providers(for: [url.path])[0]
        let sink = try await vettedSink(adopting: file, for: provider, password: password, what: "the uploaded PDF")
        // The file is put in place on the thread that then opens it: one trip to the pool for both.
        return try await create(
            id, files: [url.path], origin: .upload, password: password, providers: [provider],
            placing: { try provider.replaceContents(with: sink) })
    }

    /// A finished sink of `provider` made of the file at `file` (read once, kept in memory with its fingerprint),
    /// whose bytes a PDF worker has checked as ``vet(_:fingerprint:password:what:)`` does.
    /// - Throws: as ``vet(_:fingerprint:password:what:)``; a `DataProviderError` when the file cannot be read.
    func vettedSink(
        adopting file: URL, for provider: CoordinatedFileDataProvider, password: String?, what: String
    ) async throws -> FileDataSink {
        let made = try await blocking { () throws -> FileDataSink? in
            try provider.createDataSink(adoptingFileAt: file) as? FileDataSink
        }
        guard let sink = made, let adopted = sink.adopted else {
            throw StoreError.internalFailure("cannot read \(what) back: its bytes were not kept")
        }
        try await vet(adopted.bytes, fingerprint: adopted.fingerprint, password: password, what: what)
        return sink
    }

    /// Registers existing PDFs under the configured roots as one document, in the order given. A file is named
    /// by its real path (symbolic links in the given path resolved), so one file given under different
    /// spellings is one document: registering the same files again answers the existing document
    /// (`isNew` false).
    /// - Throws: ``StoreError``: `invalidParameter` (no paths, a path with NUL, a path twice), `pathOutsideRoots`,
    ///   `fileInAnotherDocument`, `unusableFile` or `damagedPDF` (missing, not a regular file with one link, not a
    ///   PDF), `passwordRequired` (encrypted, no or wrong password).
    public func register(_ paths: [String], password: String?) async throws -> (
        info: DocumentInfo, tag: EntityTag, isNew: Bool
    ) {
        guard !paths.isEmpty else {
            throw StoreError.invalidParameter("files", reason: "files must list at least one path")
        }
        if let index = paths.firstIndex(where: { $0.unicodeScalars.contains("\u{0}") }) {
            throw StoreError.invalidParameter(
                "files[\(index)]",
                reason: "path \(index) contains a NUL character (U+0000), which no file name can hold")
        }
        let resolved = try paths.map { try resolveInsideRoots($0) }
        guard Set(resolved).count == resolved.count else {
            throw StoreError.invalidParameter("files", reason: "a file may appear only once in a document")
        }
        // One registration at a time: two registrations of one file must not both find it free.
        let locks = locks
        return try await registrations.run { try await locks.withLock("registrations") {
            // The documents that hold any of these files, from the catalog's file index.
            let known = try await catalog.documents(holdingAnyOf: resolved).filter { $0.state != .deleted }
            if let same = known.first(where: { $0.files == resolved }) {
                let (info, tag) = try await info(same.id, password: password)
                return (info, tag, false)
            }
            if let holder = known.first(where: { !Set($0.files).isDisjoint(with: resolved) }) {
                let file = resolved.first { holder.files.contains($0) } ?? ""
                throw StoreError.fileInAnotherDocument(path: file, holder: holder.id)
            }
            for path in resolved {
                // Read as every file of the store is (confined), but unchecked: `vet` checks these bytes.
                let bytes = try await blocking { () throws -> Data in
                    do {
                        return try FileDataProvider(
                            fileURL: URL(fileURLWithPath: path), confinement: self.confinement(for: path)
                        ).data()
                    } catch {
                        throw StoreError.unusableFile(path: path, reason: "cannot be read: \(error)")
                    }
                }
                try await vet(bytes, password: password, what: path)
            }
            let (info, tag) = try await create(
                DocumentID.random(), files: resolved, origin: .registered, password: password)
            return (info, tag, true)
        } }
    }

    /// Enters a document whose files are in place (or that `placing` puts in place first, in the document's lane):
    /// opens it, then records it and its `created` event in one transaction (so the catalog never lists a document
    /// the log has no `created` event for, even when the database goes away in between: the document is then
    /// dropped and the error thrown), and answers its info.
    private func create(
        _ id: DocumentID, files: [String], origin: DocumentRecord.Origin, password: String?,
        providers: [CoordinatedFileDataProvider]? = nil, placing: (@Sendable () throws -> Void)? = nil
    ) async throws -> (DocumentInfo, EntityTag) {
        try await lane(id).run {
            // Until it is open, its files' events need no catalog read (``dormantPathChanged(_:)``).
            state.withLock { _ = $0.entering.insert(id) }
            defer { state.withLock { _ = $0.entering.remove(id) } }
            let now = Date()
            let placeholder = DocumentRecord(
                id: id, files: files, origin: origin, pageCount: 0, size: 0, etag: EntityTag(content: Data()),
                createdAt: now, updatedAt: now)
            let (open, _) = try await load(
                placeholder, password: password, requireAll: true, providers: providers, placing: placing)
            try adopt(open)
            var record = Self.updated(placeholder, from: open, files: open.files)
            record.updatedAt = now
            let recorded: StoreEvent?
            do {
                // In a cluster this node owns the document from the transaction that makes it: another node that
                // sees its file appear cannot claim it first.
                recorded = try await catalog.insert(
                    record,
                    recording: StoreEvent(type: .created, documentID: id, etag: record.etag, node: recordingNode),
                    ownedBy: isClusterNode ? membership.id : nil)
            } catch {
                forget(id)
                throw error
            }
            ownership.remember(.this(takenOverFrom: nil), of: id)
            if let recorded {
                metrics.recordEvent(.created)
                fanOut.committed(recorded)
            }
            // The record as inserted is the catalog's (a first version; dates kept at the catalog's precision):
            // the answer needs no read of it back.
            record.version = 1
            return try await info(of: open, known: record)
        }
    }

    /// Checks, in a PDF worker process and within the deadline, that `bytes` open as a PDF (with `password` if
    /// encrypted). What the worker found is remembered: the document's first open does not ask again.
    /// - Throws: as ``vet(contentsOf:password:what:)``.
    func vet(_ bytes: Data, fingerprint: ContentFingerprint? = nil, password: String?, what: String) async throws {
        guard !bytes.isEmpty else { throw StoreError.damagedPDF(what: what, reason: PDFError.empty.description) }
        do {
            // A key of its own: the check of one new document waits for no other document's work.
            _ = try await engine(key: "vet-\(vettedCount.add(1, ordering: .relaxed).newValue)").probe(
                bytes, fingerprint: fingerprint ?? ContentFingerprint(of: bytes), password: password)
        } catch PDFError.encrypted {
            throw StoreError.passwordRequired(what: what, wrongPassword: password != nil)
        } catch let error as PDFError {
            throw StoreError.damagedPDF(what: what, reason: error.description)
        } catch let error as PDFWorkError {
            throw StoreError.pdfWork(error, work: "opening \(what)")
        }
    }

    /// The path with symbolic links resolved, if it lies inside a configured root. (Whether it is a regular file
    /// with one link is checked when it is opened, beneath its root, on the descriptor that is read.)
    /// - Throws: ``StoreError/pathOutsideRoots(_:)`` outside the roots (or with no roots configured),
    ///   ``StoreError/unusableFile(path:reason:)`` missing.
    func resolveInsideRoots(_ path: String) throws -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let resolved = realpath(absolute, nil) else {
            if !isInsideRoots(absolute) { throw StoreError.pathOutsideRoots(path) }
            throw StoreError.unusableFile(path: path, reason: "the file does not exist")
        }
        defer { free(resolved) }
        let real = String(cString: resolved)
        guard isInsideRoots(real) else { throw StoreError.pathOutsideRoots(path) }
        return real
    }

    private func isInsideRoots(_ path: String) -> Bool {
        rootConfinements.contains { $0.contains(path) }
    }
}
