import FileCoordination
import Foundation
import PDFTypes

extension Document {
    // MARK: edits

    /// Sets the metadata of the first provider's PDF; the document has unsaved changes until ``save()``.
    /// - Throws: ``DocumentError/closed``, or the first provider's opening error.
    public func setMetadata(_ metadata: DocumentMetadata) throws {
        try edit(partAt: 0) { pdf in try pdf.setMetadata(metadata.pdfMetadata) }
    }

    /// Adds a note or a highlight to a page; the document has unsaved changes until ``save()``.
    /// - Throws: ``DocumentError/pageOutOfRange(_:pageCount:)``, ``DocumentError/closed``, or a poppler
    ///   failure (such as an unusable rectangle) as ``DocumentError/pdf(source:_:)``.
    public func addAnnotation(_ annotation: Annotation, toPageAt pageIndex: Int) throws {
        let (_, relative, provider) = try page(pageIndex)
        guard let index = partIndex(of: provider) else { throw DocumentError.unknownDataProvider(provider.uid) }
        let converted = PDFAnnotation(
            kind: annotation.kind == .note ? .note : .highlight,
            rect: PDFRect(
                x: annotation.rect.origin.x, y: annotation.rect.origin.y, width: annotation.rect.width,
                height: annotation.rect.height),
            contents: annotation.contents)
        try edit(partAt: index) { pdf in try pdf.addAnnotation(converted, toPageAt: relative) }
    }

    /// Whether an edit has not been saved yet.
    public var hasUnsavedChanges: Bool { state.withLock { state in state.parts.contains(where: \.isDirty) } }

    // MARK: saving

    /// Writes every provider with unsaved changes through its sink: atomically (a temporary file beside the
    /// file, synced, renamed over it, directory synced) and, for coordinated providers, inside a coordinated
    /// write. The document's own save posts no change notification to itself.
    /// - Throws: ``DocumentError/unresolvedConflict(_:source:)`` while any file is in conflict (nothing is
    ///   written), ``DocumentError/notWritable(source:)``, ``DocumentError/saveFailed(source:underlying:)``
    ///   (that file is unchanged; providers saved before it stay saved), ``DocumentError/closed``.
    public func save() throws {
        let dirty = try state.withLock { state throws(DocumentError) -> [Int] in
            guard !state.isClosed else { throw .closed }
            if let part = state.parts.first(where: { $0.conflict != nil }), let conflict = part.conflict {
                throw .unresolvedConflict(conflict, source: Self.sourceName(part.provider))
            }
            return state.parts.indices.filter { state.parts[$0].isDirty }
        }
        for index in dirty { try write(partAt: index) }
    }

    // MARK: conflicts

    /// The first file in conflict, if any (a document of several files may have more: see ``conflicts``).
    public var conflict: FileConflict? { conflicts.first }

    /// Every file in conflict, in provider order.
    public var conflicts: [FileConflict] {
        state.withLock { state in
            state.parts.compactMap { part in
                guard let type = part.conflict, let provider = part.provider as? any CoordinatedFileDataProviding
                else { return nil }
                return FileConflict(type: type, dataProvider: provider)
            }
        }
    }

    /// Resolves a conflict of one provider (and may be used without one):
    /// - `.reload` drops the provider's unsaved changes and reads the file again;
    /// - `.save` writes the document's state of that provider over the file, restoring a deleted file (if the
    ///   provider's PDF never opened, the provider's own copy is written back);
    /// - `.close` closes the whole document: its providers stop reporting to it, their presenters are
    ///   unobserved, ``underlyingFileChanges`` streams finish, and every further call throws
    ///   ``DocumentError/closed``.
    ///
    /// In a conflict, the side a resolution drops is kept as a conflict version of the file in ``versionStore``
    /// (`FileVersion`, `NSFileVersion` on Linux), so that it can be restored: `.reload` keeps the unsaved edits (the
    /// PDF as the engine saves it), `.save` keeps the bytes on disk it overwrites (a `.modification` conflict only:
    /// after a deletion there are none).
    /// - Throws: ``DocumentError/unknownDataProvider(_:)``, ``DocumentError/closed``; for `.reload` the error
    ///   of reading the file (``DocumentError/fileNotFound(source:)`` for a deleted one: the state is kept);
    ///   for `.save` ``DocumentError/saveFailed(source:underlying:)``; ``DocumentError/versionNotKept(source:underlying:)``
    ///   when the dropped side cannot be kept (nothing is resolved then).
    public func resolveFileConflict(
        for dataProvider: any CoordinatedFileDataProviding, with resolution: FileConflictResolution
    ) throws {
        guard let index = partIndex(of: dataProvider) else {
            throw DocumentError.unknownDataProvider(dataProvider.uid)
        }
        if isClosed { throw DocumentError.closed }
        switch resolution {
        case .reload:
            let previous = state.withLock { $0.parts[index] }
            let kept = try keepUnsavedEdits(of: previous, file: dataProvider.fileURL)
            if let error = load(partAt: index) {
                state.withLock { $0.parts[index] = previous }
                try? kept?.remove()
                throw error
            }
        case .save:
            try keepBytesOnDisk(of: dataProvider, conflict: state.withLock { $0.parts[index].conflict })
            if state.withLock({ $0.parts[index].pdf }) != nil {
                try write(partAt: index)
            } else {
                do {
                    try dataProvider.resolveFileConflict(with: .save)
                } catch {
                    throw DocumentError.saveFailed(source: Self.sourceName(dataProvider), underlying: error)
                }
            }
            state.withLock { $0.parts[index].conflict = nil }
        case .close:
            close()
        }
    }

    /// Keeps a part's unsaved edits (in a conflict) as a conflict version of `file`; nil when there is nothing to
    /// keep or no store.
    private func keepUnsavedEdits(of part: Part, file: URL) throws -> FileVersion? {
        guard part.conflict != nil, part.isDirty, let pdf = part.pdf, let store = versionStore else { return nil }
        do {
            return try store.add(ofItemAt: file, data: try pdf.dataRepresentation(), conflict: true)
        } catch {
            throw DocumentError.versionNotKept(source: Self.sourceName(part.provider), underlying: error)
        }
    }

    /// Keeps the bytes on disk of a provider in a `.modification` conflict as a conflict version, read through
    /// the provider (coordinated, and confined if it is); a file gone meanwhile has none to keep.
    private func keepBytesOnDisk(of provider: any CoordinatedFileDataProviding, conflict: FileConflictType?) throws {
        guard conflict == .modification, let store = versionStore else { return }
        do {
            let bytes: Data
            do {
                bytes = try provider.data()
            } catch let error as DataProviderError where error.isFileMissing {
                return
            }
            _ = try store.add(ofItemAt: provider.fileURL, data: bytes, conflict: true)
        } catch {
            throw DocumentError.versionNotKept(source: Self.sourceName(provider), underlying: error)
        }
    }

    /// True after a `.close` resolution.
    public var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Drops everything read and every unsaved change, and reads every provider again (Nutrient: "will also
    /// destroy any unsaved annotations"). File providers also drop their own caches.
    public func clearCache() {
        guard !isClosed else { return }
        for (index, provider) in dataProviders.enumerated() {
            (provider as? FileDataProvider)?.clearCache()
            load(partAt: index)
        }
    }

    // MARK: private

    /// Runs an edit on a part's PDF and marks the part dirty.
    func edit(partAt index: Int, _ body: (any PDFEngineDocument) throws -> Void) throws {
        let (pdf, provider) = try state.withLock {
            state throws(DocumentError) -> (any PDFEngineDocument, any DataProviding) in
            guard !state.isClosed else { throw .closed }
            guard index < state.parts.count else { throw .pageOutOfRange(0, pageCount: 0) }
            let part = state.parts[index]
            guard let pdf = part.pdf else {
                throw part.error ?? .fileNotFound(source: Self.sourceName(part.provider))
            }
            return (pdf, part.provider)
        }
        try Self.source(provider) { try body(pdf) }
        state.withLock { state in
            state.parts[index].isDirty = true
            state.parts[index].edits += 1
        }
    }

    /// Writes a part's PDF through its provider's sink; marks it clean if no edit came in meanwhile.
    func write(partAt index: Int) throws {
        let (part, edits) = state.withLock { ($0.parts[index], $0.parts[index].edits) }
        let source = Self.sourceName(part.provider)
        guard let writable = part.provider as? any WritableDataProviding else {
            throw DocumentError.notWritable(source: source)
        }
        guard let pdf = part.pdf else { throw part.error ?? DocumentError.fileNotFound(source: source) }
        do {
            let bytes = try pdf.dataRepresentation()
            let sink = try writable.createDataSink(options: [])
            guard sink.writeData(bytes), sink.finish() else {
                throw (sink as? FileDataSink)?.failure ?? DataProviderError.sinkFailed("the sink refused the bytes")
            }
            try writable.replaceContents(with: sink)
        } catch {
            throw DocumentError.saveFailed(source: source, underlying: error)
        }
        state.withLock { state in
            state.parts[index].conflict = nil
            if state.parts[index].edits == edits { state.parts[index].isDirty = false }
        }
    }

    /// Closes the document (the `.close` resolution).
    func close() {
        let (providers, listeners) = state.withLock {
            state -> ([any DataProviding], [AsyncStream<UnderlyingFileChange>.Continuation]) in
            state.isClosed = true
            defer { state.listeners.removeAll() }
            return (state.parts.map(\.provider), Array(state.listeners.values))
        }
        var presenters: [any FilePresenter] = []
        for case let provider as any CoordinatedFileDataProviding in providers {
            let coordinated = provider
            if coordinated.coordinationDelegate === self { coordinated.coordinationDelegate = nil }
            presenters.append(provider.filePresenter)
        }
        FilePresenterCoordinator.shared.unobserve(presenters)
        for listener in listeners { listener.finish() }
    }
}
