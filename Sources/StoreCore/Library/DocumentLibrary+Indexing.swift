import DocumentModel
import Foundation
import PDFWorkerWire

extension DocumentLibrary {
    /// How many catalog entries one step of the index's catch-up reads.
    static let indexCatchUpPageSize = 500
    /// The longest text kept of one page, in UTF-8 bytes (PostgreSQL's `tsvector` holds at most 1 MiB).
    static let maximumIndexedPageBytes = 256 * 1024
    /// How often a document whose extraction found no free worker is tried again before it is left for its next
    /// change or the next start.
    static let indexAttempts = 3
    /// How many pages' text one worker request extracts: enough that the request's round trip is small beside
    /// the work, few enough that a request stays far within its deadline.
    static let indexTextBatch = 64

    /// Keeps the search index true to the documents' files until the task is cancelled: every event (this node's
    /// and, in a cluster, the others') puts its document in the ``SearchIndexing`` queue; a catch-up walks the
    /// catalog in bounded steps at start (and after the event stream fell behind) for the documents whose
    /// version the index does not reflect; at most ``StoreConfiguration/pdfWorkers`` − 1 documents (one at
    /// least) are indexed at once, each by ``indexDocument(_:)``.
    func runIndexing() async {
        let wakes = searchIndexing.wakeUps()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.followChangesForIndex() }
            for await _ in wakes {
                while let id = searchIndexing.next() {
                    group.addTask {
                        await self.indexDocument(id)
                        self.searchIndexing.finished(id)
                    }
                }
                recordIndexingMetrics()
            }
            group.cancelAll()
        }
    }

    /// Puts every event's document in the queue, after a catch-up that runs beside it; subscribes again (and
    /// catches up again) when the stream ends because this reader fell behind.
    private func followChangesForIndex() async {
        while !Task.isCancelled {
            let subscription = events.subscribe()
            let catchUp = Task { await self.catchUpIndex() }
            for await item in subscription.items {
                if case .event(let event) = item { searchIndexing.changed(event.documentID) }
            }
            catchUp.cancel()
            guard subscription.wasCutOff else { return }  // shut down
        }
    }

    /// Finds, page by page (``indexCatchUpPageSize`` entries a step), the documents whose version the index does
    /// not reflect, and queues them; waits while more than a page of them wait, so memory stays bounded.
    func catchUpIndex() async {
        var position: ListingPosition?
        var found = 0
        repeat {
            while searchIndexing.waiting.count > Self.indexCatchUpPageSize, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
            }
            guard !Task.isCancelled else { return }
            let step: (documents: [DocumentRecord], next: ListingPosition?)
            do {
                step = try await catalog.documentsToIndex(after: position, limit: Self.indexCatchUpPageSize)
            } catch {
                logger.warning(
                    "the search index's catch-up stopped: the catalog cannot be read",
                    metadata: ["error": "\(error)", "found": "\(found)"])
                return
            }
            for record in step.documents { searchIndexing.changed(record.id) }
            found += step.documents.count
            position = step.next
        } while position != nil
        if found > 0 { logger.info("the search index is catching up", metadata: ["documents": "\(found)"]) }
    }

    /// Reads document `id`'s files as they are now and puts their text in the index at the version its record
    /// had before they were read: the pages' text, labels and the metadata are extracted in the PDF workers at
    /// background priority, without the document's lock. A document gone or deleted leaves the index; one this
    /// node does not own (a cluster's other node indexes it), or whose version is indexed already, is left alone.
    /// An encrypted document without its password, or a damaged one, is indexed as such, without text.
    func indexDocument(_ id: DocumentID) async {
        do {
            guard let record = try await catalog.document(id), record.state != .deleted else {
                try await catalog.removeFromIndex(id)
                return
            }
            if let indexed = try await catalog.indexedVersions(of: [id])[id], indexed >= record.version { return }
            guard await recordsObservedChanges(of: id) else { return }
            for attempt in 1...Self.indexAttempts {
                do {
                    let entry = try await extract(record)
                    if try await catalog.index(entry) {
                        metrics.searchDocumentsIndexed.increment()
                        metrics.searchPagesIndexed.increment(by: entry.pages.count)
                    }
                    return
                } catch let error as PDFWorkError where error.isTransient && error != .shutDown {
                    guard attempt < Self.indexAttempts else { throw error }
                    try await Task.sleep(for: .milliseconds(250 << attempt))
                }
            }
        } catch is CancellationError {
        } catch PDFWorkError.shutDown {
        } catch {
            logger.warning(
                "a document could not be indexed for search (its next change, or the next start, tries again)",
                metadata: ["document": "\(id)", "error": "\(error)"])
        }
    }

    /// The index entry of `record`'s files as they are now.
    /// - Throws: a transient ``PDFWorkError`` (no worker free), a catalog error, or `CancellationError`.
    private func extract(_ record: DocumentRecord) async throws -> IndexedDocument {
        var entry = IndexedDocument(id: record.id, version: record.version, status: .text)
        var pageNumber = 0
        for (index, path) in record.files.enumerated() {
            let bytes: Data
            do {
                bytes = try await blocking {
                    try FileDataProvider(fileURL: URL(fileURLWithPath: path), confinement: self.confinement(for: path))
                        .data()
                }
            } catch {
                entry.status = .damaged
                return entry
            }
            let payload = PDFWorkPayload(bytes)
            let summary: PDFWorkerSummary
            do {
                let answer = try await workers.run(
                    PDFWorkerRequest(operation: .probe, pageIndex: 0), pdf: payload, key: record.id.rawValue,
                    priority: .background)
                summary = try WorkerPDFEngine.decodeSummary(answer)
            } catch let error as PDFWorkError where !error.isTransient {
                if case .refused(let reply) = error, reply.status == .passwordRequired {
                    entry.status = .encrypted
                } else if case .refused(let reply) = error, reply.status == .damaged {
                    entry.status = .damaged
                } else {
                    entry.status = .failed
                }
                entry.pages = []
                return entry
            }
            if index == 0 {
                entry.title = summary.metadata.title
                entry.author = summary.metadata.author
                entry.subject = summary.metadata.subject
                entry.keywords = summary.metadata.keywords
            }
            for first in stride(from: 0, to: summary.pages.count, by: Self.indexTextBatch) {
                let count = min(Self.indexTextBatch, summary.pages.count - first)
                let texts = try await pageTexts(first: first, count: count, of: payload, key: record.id.rawValue)
                for (offset, text) in texts.enumerated() {
                    guard let text, !text.allSatisfy(\.isWhitespace) else { continue }
                    entry.pages.append(
                        IndexedPage(
                            number: pageNumber + first + offset + 1, label: summary.pages[first + offset].label,
                            text: text))
                }
            }
            pageNumber += summary.pages.count
        }
        return entry
    }

    /// The text of `count` pages from `first` (each cut to ``maximumIndexedPageBytes``) in one worker request, on
    /// as many threads as a background worker has; when that request fails for good (a page crashed its worker,
    /// say), each page alone, so that one bad page costs only its own text (nil).
    /// - Throws: a transient ``PDFWorkError`` (no worker free), or `CancellationError`.
    private func pageTexts(first: Int, count: Int, of payload: PDFWorkPayload, key: String) async throws -> [String?] {
        do {
            let answer = try await workers.run(
                PDFWorkerRequest(operation: .texts, pageIndex: UInt32(first), pageCount: UInt32(count)), pdf: payload,
                key: key, priority: .background)
            let texts = try PDFWorkerTexts.decode(Array(answer))
            if texts.count == count { return texts.map { Self.bounded($0) } }
        } catch let error as PDFWorkError where !error.isTransient {
            // One of the pages failed its worker (or the batch its deadline): each page alone, below.
        } catch is PDFWorkerWireError {
            // A reply that is not a list of texts: each page alone, below.
        }
        var texts: [String?] = []
        for page in first..<first + count {
            do {
                let answer = try await workers.run(
                    PDFWorkerRequest(operation: .text, pageIndex: UInt32(page)), pdf: payload, key: key,
                    priority: .background)
                texts.append(Self.bounded(String(decoding: answer, as: UTF8.self)))
            } catch let error as PDFWorkError where !error.isTransient {
                texts.append(nil)  // this page's text cannot be had: the others can
            }
        }
        return texts
    }

    /// `text`, cut to ``maximumIndexedPageBytes`` (its last character whole).
    static func bounded(_ text: String) -> String {
        PDFWorkerTexts.cut(text, toUTF8Bytes: maximumIndexedPageBytes)
    }

    /// Records the queue's length and its oldest wait on `/metrics`.
    func recordIndexingMetrics() {
        let (count, oldest) = searchIndexing.waiting
        metrics.searchIndexWaiting.record(count)
        let wait = oldest.map { ContinuousClock.now - $0 } ?? .zero
        metrics.searchIndexOldestWait.record(
            Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
    }
}
