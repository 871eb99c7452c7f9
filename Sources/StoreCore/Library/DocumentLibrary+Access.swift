import DocumentModel
import Foundation
import PDFWorkerWire

/// What every request that reveals an open document's content checks first: that its password opens it, and that
/// its files are still the ones whose bytes it holds.
extension DocumentLibrary {
    /// Lets `password` into the open document `open`: at once when it is known to open it (or none is needed),
    /// else when a worker opens the document's encrypted PDFs with it (the user and the owner password both do;
    /// poppler tries the one given as either). A password that opens it is remembered for later requests.
    /// - Throws: ``StoreError/passwordRequired(what:wrongPassword:)`` for a missing or wrong password;
    ///   ``StoreError/pdfWorkFailed(_:work:)`` when no worker could try it.
    func admit(_ password: String?, to open: OpenDocument) async throws {
        if open.accepts(password: password) { return }
        let refusal = StoreError.passwordRequired(what: "document \(open.id.rawValue)", wrongPassword: password != nil)
        guard let password else { throw refusal }
        let document = open.document
        // Each file's PDF once (a file that did not open has no page of its own: its offset is the next one's).
        var encrypted: [ObjectIdentifier: WorkerPDFDocument] = [:]
        for provider in document.dataProviders {
            guard let offset = document.pageOffset(for: provider), offset < document.pageCount,
                let pdf = try? document.engineDocument(forPageAt: offset).document as? WorkerPDFDocument,
                pdf.isEncrypted
            else { continue }
            encrypted[ObjectIdentifier(pdf)] = pdf
        }
        guard !encrypted.isEmpty else { throw refusal }  // nothing left to try it on (its files are damaged)
        for pdf in encrypted.values {
            do {
                _ = try await pdf.perform(PDFWorkerRequest(operation: .probe, pageIndex: 0, password: password))
            } catch let error as PDFWorkError {
                if case .refused(let reply) = error, reply.status == .passwordRequired { throw refusal }
                throw StoreError.pdfWorkFailed(error, work: "trying a password of document \(open.id.rawValue)")
            }
        }
        open.admit(password: password)
    }

    /// Makes sure the open document holds the bytes of its files as they are now, beneath their roots. Each file
    /// whose identity (device, inode, size, times, read through the confinement with its one-link check) differs
    /// from the one last read is checked at once, as a watcher's report would have it checked: a file that
    /// cannot be read now (a hard link added, a symbolic link or a FIFO put in its place) makes the document
    /// damaged, a changed one reloads; and its event is recorded before this returns. So a change that no watch
    /// reported (one made through a hard link that appeared since the last look, say) never leaves an answer
    /// made from the old bytes. Costs an `openat2` and an `fstat` per file when nothing changed. Call inside the
    /// document's lane.
    func bringUpToDate(_ open: OpenDocument) async throws {
        guard !open.filesAreCurrent else { return }
        let checked = try await blocking { open.recheckFiles() }
        guard !checked.isEmpty else { return }
        open.invalidateInfo()
        for provider in checked {
            await recordObservedChange(
                of: open, path: provider.fileURL.path, isDeletion: provider.lastLook == .missing)
        }
    }
}
