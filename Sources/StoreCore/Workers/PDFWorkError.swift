import PDFWorkerWire

/// Why a PDF request given to the worker processes did not give a result.
public enum PDFWorkError: Error, Sendable, Equatable, CustomStringConvertible {
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

    /// Whether the failure says nothing of the PDF (no worker was free, or none could start): the work may
    /// succeed when tried again, and the document is not damaged.
    public var isTransient: Bool {
        switch self {
        case .queueFull, .waitedTooLong, .unavailable, .shutDown: return true
        case .deadlineExceeded, .workerCrashed, .refused: return false
        }
    }

    /// One line: what happened to the work.
    public var description: String {
        switch self {
        case .deadlineExceeded(let deadline):
            return "a PDF worker took longer than \(deadline) on it and was stopped"
        case .queueFull: return "too many PDF requests of this document are waiting"
        case .waitedTooLong(let deadline): return "no PDF worker was free within \(deadline)"
        case .workerCrashed(let how): return "a PDF worker stopped while working on it (\(how))"
        case .refused(let reply): return reply.message
        case .unavailable(let reason): return "no PDF worker could be started: \(reason)"
        case .shutDown: return "the service is stopping"
        }
    }
}
