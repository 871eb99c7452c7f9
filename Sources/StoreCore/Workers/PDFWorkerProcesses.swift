import DocumentModel
import Logging

/// Sandboxed PDF worker processes (`quire-pdf worker`) as a ``DocumentModel/PDFEngine`` for code outside the
/// service: `Document(dataProviders:engine:)` with ``engine(queue:)`` parses in the workers, with the deadline
/// and memory limit, exactly as the service does. (The service makes its own; this is for tools and benchmarks
/// that want the same isolation.)
public final class PDFWorkerProcesses: Sendable {
    let pool: PDFWorkerPool
    private let summaries = PDFSummaryCache()

    /// Starts nothing yet: each of the `workers` processes starts when first needed.
    /// - Parameters:
    ///   - executable: the `quire-pdf` to run; nil takes the one next to this process's executable, or
    ///     `QUIRE_PDF_WORKER`.
    ///   - workers: how many worker processes at most.
    ///   - deadline: how long one request may wait and run; past it the worker is killed and replaced.
    ///   - memoryMiB: the address space of one worker (`RLIMIT_AS`).
    public init(executable: String? = nil, workers: Int, deadline: Duration = .seconds(10), memoryMiB: Int = 2048) {
        pool = PDFWorkerPool(
            settings: .init(
                executable: executable ?? PDFWorkerPool.defaultExecutable(), workers: workers, deadline: deadline,
                memoryLimitMiB: memoryMiB),
            metrics: StoreMetrics(), logger: Logger(label: "quire.pdf-workers"))
    }

    /// An engine whose requests queue under `key`: requests of one key run one at a time, keys take turns.
    public func engine(queue key: String) -> any PDFEngine {
        WorkerPDFEngine(pool: pool, summaries: summaries, key: key)
    }

    /// The process ids of the worker processes running now.
    public var processIDs: [Int32] { pool.workerProcessIDs }

    /// Stops every worker; requests still waiting fail.
    public func shutdown() { pool.shutdown() }
}
