import Synchronization
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Extracts the text of many pages in parallel: one thread per worker, each with its own ``PDFDocument``.
///
/// The threads start before any document is opened, so opening overlaps too. Pages are handed out one at a time
/// from a shared counter (long pages do not hold up a whole share), and the result is in page order and identical
/// to what one thread produces.
public enum PDFTextExtractor {
    /// Returns the text of each page in `pages` (zero-based indexes, in the order given; all pages if nil).
    /// - Parameters:
    ///   - data: The PDF's bytes.
    ///   - password: The user or owner password of an encrypted PDF.
    ///   - pages: The pages, from 0, in the order wanted; every page when nil.
    ///   - workers: how many threads (and document instances) to use; defaults to the number of processors.
    ///     Fewer are used when there are fewer pages.
    /// - Throws: any `PDFError` of ``PDFDocument/init(data:password:)``, or `.pageOutOfRange` for a bad index.
    public static func text(
        of data: Data, password: String? = nil, pages: [Int]? = nil, workers: Int? = nil
    ) throws(PDFError) -> [String] {
        let requested = max(1, workers ?? WorkerThreads.processorCount)
        let count = min(requested, max(1, pages?.count ?? requested))
        let state = ExtractionState(pages: pages)
        WorkerThreads.run(count: count) { _ in
            state.work(data: data, password: password)
        }
        return try state.result()
    }

    /// Returns the text of each page in `pages` (zero-based indexes, in the order given), extracted on one thread
    /// per document in `documents`: instances of the same PDF that the caller opened and keeps (a worker process
    /// keeps them between requests, so that a long document is opened once per thread, not once per batch).
    /// Each instance is used by one thread only while this runs; fewer threads run when there are fewer pages.
    /// - Throws: `.pageOutOfRange` for a bad index, or the first `PDFError` a page's extraction throws.
    public static func text(ofPages pages: [Int], in documents: [PDFDocument]) throws(PDFError) -> [String] {
        let count = min(documents.count, pages.count)
        guard count > 0 else { return [] }
        let state = ExtractionState(pages: pages)
        WorkerThreads.run(count: count) { index in
            state.work(on: documents[index])
        }
        return try state.result()
    }

    /// Shared between the worker threads: the page counter, the results and the first error.
    private final class ExtractionState: @unchecked Sendable {
        private let requestedPages: [Int]?
        private let next = Atomic<Int>(0)
        private let pageList = Mutex<[Int]?>(nil)
        private let results = Mutex<[Int: String]>([:])
        private let failure = Mutex<PDFError?>(nil)

        init(pages: [Int]?) {
            requestedPages = pages
        }

        func work(data: Data, password: String?) {
            let document: PDFDocument
            do {
                document = try PDFDocument(data: data, password: password)
            } catch {
                record(error)
                return
            }
            work(on: document)
        }

        func work(on document: PDFDocument) {
            let pages = pageList.withLock { list in
                if list == nil { list = requestedPages ?? Array(0..<document.pageCount) }
                return list!
            }
            var local: [Int: String] = [:]
            while failure.withLock({ $0 == nil }) {
                let slot = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard slot < pages.count else { break }
                do {
                    local[slot] = try document.text(ofPageAt: pages[slot])
                } catch {
                    record(error)
                    break
                }
            }
            results.withLock { $0.merge(local) { first, _ in first } }
        }

        private func record(_ error: PDFError) {
            failure.withLock { if $0 == nil { $0 = error } }
        }

        func result() throws(PDFError) -> [String] {
            if let error = failure.withLock({ $0 }) { throw error }
            let pages = pageList.withLock { $0 } ?? []
            let texts = results.withLock { $0 }
            return (0..<pages.count).map { texts[$0] ?? "" }
        }
    }
}
