import PDFWorkerWire

/// Why a PDF request given to the worker processes did not give a result.
enum PDFWorkError: Error, Sendable {
    /// The request ran longer than its deadline; its worker was killed and replaced.
    case deadlineExceeded(Duration)
    /// The document has as many requests waiting as it may.
    case queueFull
    /// The request waited for a worker longer than its deadline and was given up.
    case waitedTooLong(Duration)
    /// The worker process ended, or broke the protocol, while it held the request (how it ended).
    case workerCrashed(String)
    /// The worker answered that the operation failed.
    case refused(PDFWorkerReply)
    /// No worker could be started (the reason).
    case unavailable(String)
    /// The pool is shut down.
    case shutDown
}
