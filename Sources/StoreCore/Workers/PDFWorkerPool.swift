import CQuireLinux
import Dispatch
import Foundation
import Logging
import PDFWorkerWire
import QuireSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The PDF worker processes of the service: `quire-pdf worker` children that render pages and extract text,
/// so that a PDF that takes too long (or crashes poppler, or takes all memory) costs a killed child, never the
/// service or another document's requests.
///
/// Requests are queued per document and served round-robin by ``PDFWorkScheduler`` (one running request per
/// document at a time, a bounded queue per document; documents whose requests run long wait behind the others and
/// never hold every worker). Each has a deadline: one still waiting for a worker then
/// is given up (``PDFWorkError/waitedTooLong(_:)``); one still running then has its worker killed and replaced
/// (``PDFWorkError/deadlineExceeded(_:)``). Each worker slot has a thread of its own (a serial dispatch queue)
/// for its blocking socket calls: nothing blocks the cooperative pool or an event loop. State changes happen
/// under the lock; continuations are resumed and work is started after it.
final class PDFWorkerPool: Sendable {
    /// How the pool runs.
    struct Settings: Sendable {
        /// The `quire-pdf` executable.
        var executable: String
        /// How many worker processes serve interactive requests.
        var workers: Int
        /// How many worker processes serve background requests (the search index's extraction) only, each started
        /// at the lowest priority of the normal policy (nice 19): 0 refuses background requests.
        var backgroundWorkers: Int = 0
        /// How many threads of a background worker extract the pages of one texts request: at nice 19 they take
        /// little of a processor that other work wants, so together the background workers may have one per
        /// processor.
        var backgroundTextThreads: Int = 1
        /// How long one request may wait and then run.
        var deadline: Duration
        /// How long one background request may wait and then run, in multiples of ``deadline``: a background
        /// worker runs only on processors nothing else wants, so on a busy machine its wall-clock time says little
        /// of the PDF's cost, and a kill for it would be a false alarm.
        var backgroundDeadlineFactor: Int = 6
        /// How long one background request may wait and then run.
        var backgroundDeadline: Duration { deadline * max(1, backgroundDeadlineFactor) }
        /// The address space of one worker, in MiB.
        var memoryLimitMiB: Int = 2048
        /// How many requests of one document may wait.
        var maximumQueuedPerDocument: Int = 16
        /// How long a request may run before its document counts as heavy (at most half the deadline): a heavy
        /// document's requests wait behind the others', and heavy documents together hold all workers but one
        /// (``PDFWorkScheduler``).
        var slowRun: Duration = .seconds(1)
        /// How long a document stays heavy after its last slow request.
        var heavyPenalty: Duration = .seconds(60)
        /// The largest result accepted from a worker, in bytes.
        var maximumResultBytes: Int = 1 << 30
        /// How long a caller polls for its reply before it sleeps in `poll`, when it is the only interactive
        /// request running (`workers.pollMicroseconds`): a sleeping caller and a sleeping worker cost about 0.1 ms
        /// of wake-ups per request on a 2-vCPU virtual machine (a C ping-pong: 100 µs over the work sleeping,
        /// 10 µs polling).
        var replyPoll: Duration = .milliseconds(2)
        /// How long an idle worker polls for its next request before it sleeps (`workers.idlePollMicroseconds`).
        var idlePoll: Duration = .microseconds(1500)
    }

    private struct Pending: Sendable {
        let job: PDFWorkScheduler.JobID
        let request: PDFWorkerRequest
        let pdf: PDFWorkPayload
        let edits: [PDFWorkerEdit]
        let key: String
        var priority: PDFWorkScheduler.Priority = .interactive
        let continuation: Completion
    }

    /// Who waits for a request: an async caller, or a thread blocked in ``runBlocking(_:pdf:edits:key:)``.
    private enum Completion: Sendable {
        case async(CheckedContinuation<Data, any Error>)
        case blocking(BlockingResult)

        func resume(with result: Result<Data, any Error>) {
            switch self {
            case .async(let continuation): continuation.resume(with: result)
            case .blocking(let box): box.set(result)
            }
        }

        func resume(throwing error: any Error) { resume(with: .failure(error)) }

        /// Whether a thread is blocked waiting.
        var isBlocking: Bool {
            if case .blocking = self { return true }
            return false
        }
    }

    /// A result a blocked thread waits for.
    private final class BlockingResult: Sendable {
        private let result = Mutex<Result<Data, any Error>?>(nil)
        private let ready = DispatchSemaphore(value: 0)

        func set(_ value: Result<Data, any Error>) {
            result.withLock { $0 = value }
            ready.signal()
        }

        func wait() -> Result<Data, any Error> {
            ready.wait()
            return result.withLock { $0 } ?? .failure(PDFWorkError.shutDown)
        }
    }

    private struct State {
        var scheduler: PDFWorkScheduler
        var pending: [PDFWorkScheduler.JobID: Pending] = [:]
        var nextJob: PDFWorkScheduler.JobID = 1
        var isShutDown = false
    }

    /// What to do once the lock is released.
    private enum Step {
        case run(Pending, slot: Int)
        case fail(Pending, PDFWorkError)
    }

    let settings: Settings
    private let state: Mutex<State>
    private let slots: [WorkerSlot]
    private let metrics: StoreMetrics
    fileprivate let logger: Logger

    /// A pool of `settings.workers` interactive slots and `settings.backgroundWorkers` background ones; each
    /// starts its process when first needed.
    init(settings: Settings, metrics: StoreMetrics, logger: Logger) {
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        let count = max(1, settings.workers)
        let background = max(0, settings.backgroundWorkers)
        state = Mutex(
            State(
                scheduler: PDFWorkScheduler(
                    slots: count, backgroundSlots: background, maximumQueuedPerKey: settings.maximumQueuedPerDocument,
                    slowRun: min(settings.slowRun, settings.deadline / 2), penalty: settings.heavyPenalty)))
        slots = (0..<count + background).map { WorkerSlot(index: $0, background: $0 >= count) }
    }

    /// How many interactive slots run a request now, and how many there are.
    var occupancy: (busy: Int, total: Int) {
        (state.withLock { $0.scheduler.runningCount }, max(1, settings.workers))
    }

    /// The `quire-pdf` next to this process's executable (`QUIRE_PDF_WORKER` overrides it).
    static func defaultExecutable() -> String {
        if let configured = ProcessInfo.processInfo.environment["QUIRE_PDF_WORKER"], !configured.isEmpty {
            return configured
        }
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("quire-pdf").path
    }

    /// Runs `request` on `pdf` with its unsaved `edits` applied first, in a worker, queued with the other
    /// requests of document `key`.
    /// - Returns: the result's bytes.
    /// - Throws: a ``PDFWorkError``, or `CancellationError` when the caller is cancelled while it waits.
    func run(_ request: PDFWorkerRequest, pdf: Data, edits: [PDFWorkerEdit] = [], key: String) async throws -> Data {
        try await run(request, pdf: PDFWorkPayload(pdf), edits: edits, key: key)
    }

    /// ``run(_:pdf:edits:key:)`` for bytes sent often (an open document's): their memfd is made once.
    /// - Throws: as ``run(_:pdf:edits:key:)``.
    func run(
        _ request: PDFWorkerRequest, pdf: PDFWorkPayload, edits: [PDFWorkerEdit] = [], key: String,
        priority: PDFWorkScheduler.Priority = .interactive
    ) async throws -> Data {
        let job = state.withLock { state in
            defer { state.nextJob += 1 }
            return state.nextJob
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
                submit(
                    job,
                    Pending(
                        job: job, request: request, pdf: pdf, edits: edits, key: key, priority: priority,
                        continuation: .async(continuation)))
            }
        } onCancel: {
            withdraw(job, because: nil)
        }
    }

    /// ``run(_:pdf:edits:key:)`` for synchronous code on a thread that may block (never the cooperative pool or
    /// an event loop), for bytes in a payload (an open document's: their memfd is made once); waits at most
    /// about twice the deadline.
    /// - Throws: a ``PDFWorkError``.
    func runBlocking(
        _ request: PDFWorkerRequest, pdf: PDFWorkPayload, edits: [PDFWorkerEdit] = [], key: String
    ) throws -> Data {
        let job = state.withLock { state in
            defer { state.nextJob += 1 }
            return state.nextJob
        }
        let box = BlockingResult()
        submit(
            job, Pending(job: job, request: request, pdf: pdf, edits: edits, key: key, continuation: .blocking(box)))
        return try box.wait().get()
    }

    /// Queues a request, and gives it up if it still waits at its deadline.
    private func submit(_ job: PDFWorkScheduler.JobID, _ pending: Pending) {
        let now = ContinuousClock.now
        let steps = state.withLock { state -> [Step] in
            guard !state.isShutDown else { return [.fail(pending, .shutDown)] }
            state.pending[job] = pending
            return Self.steps(
                state.scheduler.submitted(job, key: pending.key, priority: pending.priority, now: now), &state)
        }
        let startsNow = steps.contains { step in
            if case .run(let started, _) = step { return started.job == job }
            return false
        }
        // A blocked caller whose request starts at once runs it on its own thread (two thread hops fewer).
        let inline: PDFWorkScheduler.JobID? = startsNow && pending.continuation.isBlocking ? job : nil
        perform(steps, inline: inline)
        guard !startsNow else { return }  // only a waiting request can outwait its deadline
        let deadline = pending.priority == .background ? settings.backgroundDeadline : settings.deadline
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline.dispatchInterval) { [weak self] in
            self?.withdraw(job, because: .waitedTooLong(deadline))
        }
    }

    /// Stops every worker; waiting requests fail with ``PDFWorkError/shutDown``.
    func shutdown() {
        let waiting = state.withLock { state -> [Pending] in
            state.isShutDown = true
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        for pending in waiting { pending.continuation.resume(throwing: PDFWorkError.shutDown) }
        for slot in slots { slot.queue.async { slot.stop() } }
    }

    /// Interactive requests waiting for a worker.
    var queuedCount: Int { state.withLock { $0.scheduler.queuedCount } }

    /// Background requests (indexing) waiting for a worker.
    var backgroundQueuedCount: Int { state.withLock { $0.scheduler.backgroundQueuedCount } }

    /// Whether document `key`'s requests wait behind the others' now (``PDFWorkScheduler``: one of them ran long).
    func isHeavy(_ key: String) -> Bool {
        let now = ContinuousClock.now
        return state.withLock { $0.scheduler.isHeavy(key, at: now) }
    }

    /// The process ids of the workers holding a request now (for tests).
    var busyWorkerProcessIDs: [pid_t] {
        slots.compactMap { slot in slot.isBusy.withLock { $0 } ? slot.processID.withLock { $0 } : nil }
    }

    /// How many interactive slots hold a request now (background ones run at nice 19: they take hardly any of a
    /// processor an interactive request wants).
    fileprivate var busyInteractiveSlotCount: Int {
        slots.reduce(0) { $0 + (!$1.background && $1.isBusy.withLock { $0 } ? 1 : 0) }
    }

    /// The process ids of the workers running now (for operators' tools and tests).
    var workerProcessIDs: [pid_t] { slots.compactMap { $0.processID.withLock { $0 } } }

    // MARK: executing the scheduler's actions

    private static func steps(_ actions: [PDFWorkScheduler.Action], _ state: inout State) -> [Step] {
        actions.compactMap { action in
            switch action {
            case .start(let job, let slot):
                return state.pending.removeValue(forKey: job).map { .run($0, slot: slot) }
            case .rejectQueueFull(let job):
                return state.pending.removeValue(forKey: job).map { .fail($0, .queueFull) }
            }
        }
    }

    /// Carries out the scheduler's steps: failures are delivered, starts run on their slot's thread (or, for
    /// job `inline`, whose caller is blocked waiting for it, on this thread through the slot's queue).
    private func perform(_ steps: [Step], inline: PDFWorkScheduler.JobID? = nil) {
        metrics.pdfQueueLength.record(queuedCount)
        for step in steps {
            switch step {
            case .fail(let pending, let error):
                pending.continuation.resume(throwing: error)
            case .run(let pending, let slot):
                let worker = slots[slot]
                let work: @Sendable () -> Void = { [self] in
                    let result = worker.perform(
                        pending.request, pdf: pending.pdf, edits: pending.edits, document: pending.key,
                        settings: settings, pool: self)
                    pending.continuation.resume(with: result)
                    let now = ContinuousClock.now
                    let next = state.withLock { state in
                        Self.steps(state.scheduler.finished(slot: slot, key: pending.key, now: now), &state)
                    }
                    perform(next)
                }
                if pending.job == inline {
                    worker.queue.sync(execute: work)
                } else {
                    worker.queue.async(execute: work)
                }
            }
        }
    }

    /// Gives up a request that is still waiting (its deadline passed, or its caller was cancelled).
    private func withdraw(_ job: PDFWorkScheduler.JobID, because error: PDFWorkError?) {
        let pending = state.withLock { state -> Pending? in
            guard state.scheduler.withdrawn(job) else { return nil }
            return state.pending.removeValue(forKey: job)
        }
        guard let pending else { return }
        pending.continuation.resume(throwing: error ?? CancellationError())
        metrics.pdfQueueLength.record(queuedCount)
    }

    /// Called by a slot when it killed or lost its worker.
    fileprivate func workerReplaced(_ reason: PDFWorkError, document: String) {
        switch reason {
        case .deadlineExceeded(let deadline):
            metrics.pdfDeadlinesMissed.increment()
            logger.warning(
                "a PDF worker missed its deadline and was killed",
                metadata: ["document": "\(document)", "deadline": "\(deadline)"])
        default:
            logger.warning(
                "a PDF worker ended while holding a request", metadata: ["document": "\(document)", "why": "\(reason)"])
        }
        metrics.pdfWorkerRestarts.increment()
    }

    /// One worker process's place, and the thread its blocking calls run on.
    private final class WorkerSlot: @unchecked Sendable {
        let queue: DispatchQueue
        /// Touched only on `queue`.
        private var process: PDFWorkerProcess? {
            didSet { processID.withLock { $0 = process?.pid } }
        }
        /// The process's id, readable from anywhere.
        let processID = Mutex<pid_t?>(nil)
        /// Whether the slot's process holds a request now, readable from anywhere.
        let isBusy = Mutex(false)
        /// Whether the slot serves background requests only (its process runs at nice 19).
        let background: Bool

        init(index: Int, background: Bool) {
            self.background = background
            queue = DispatchQueue(label: background ? "quire.pdf-background.\(index)" : "quire.pdf-worker.\(index)")
        }

        func stop() {
            process?.stop()
            process = nil
        }

        /// Runs one request on this slot's process (starting one if needed). On `queue`.
        func perform(
            _ request: PDFWorkerRequest, pdf: PDFWorkPayload, edits: [PDFWorkerEdit], document: String,
            settings: Settings, pool: PDFWorkerPool
        ) -> Result<Data, any Error> {
            let input: Int32
            do {
                input = try pdf.descriptor()
            } catch {
                return .failure(error)
            }
            var request = request
            var log: Int32 = -1
            if !edits.isEmpty {
                let bytes = PDFWorkerEdit.encode(edits)
                guard bytes.count <= PDFWorkerMessage.maximumEditsLength else {
                    return .failure(
                        PDFWorkError.refused(
                            PDFWorkerReply(
                                status: .invalidArgument, message: "the unsaved edits are too large: save them first")))
                }
                do {
                    log = try bytes.withUnsafeBytes { bytes in
                        try SystemCall.memoryFile(name: "quire-edits", contents: bytes, sealed: true)
                    }
                } catch {
                    return .failure(PDFWorkError.unavailable("cannot put the edits in a sealed memfd: \(error)"))
                }
                request.editsLength = UInt32(bytes.count)
            }
            defer { if log >= 0 { close(log) } }
            do throws(PDFWorkError) {
                if process == nil {
                    process = try PDFWorkerProcess.start(
                        executable: settings.executable, memoryLimitMiB: settings.memoryLimitMiB,
                        idlePoll: settings.idlePoll, backgroundPriority: background,
                        textThreads: background ? settings.backgroundTextThreads : 1)
                }
                guard let process else { throw .unavailable("no worker process") }
                isBusy.withLock { $0 = true }
                defer { isBusy.withLock { $0 = false } }
                // Waiting for the reply without sleeping pays only while no other interactive request runs: with
                // two, the processors are the workers'. A background request's reply is never spun for.
                let alone = !background && pool.busyInteractiveSlotCount <= 1
                let (reply, output) = try process.exchange(
                    request, pdf: input, edits: log,
                    deadline: background ? settings.backgroundDeadline : settings.deadline,
                    poll: alone ? settings.replyPoll : .zero)
                defer { if output >= 0 { close(output) } }
                guard reply.status == .succeeded else { return .failure(PDFWorkError.refused(reply)) }
                if reply.resultLength == 0 { return .success(Data()) }
                if !reply.inlineResult.isEmpty { return .success(Data(reply.inlineResult)) }
                guard reply.resultLength <= UInt64(settings.maximumResultBytes), output >= 0,
                    let bytes = Self.contents(of: output, length: Int(reply.resultLength))
                else {
                    throw .workerCrashed("its result could not be read (or is over the bound)")
                }
                return .success(bytes)
            } catch {
                if case .unavailable = error { return .failure(error) }
                process?.stop()
                // A worker that refused to serve (it could not enter its sandbox) says nothing of the PDF.
                let refused = process?.exitStatus == PDFWorkerProcess.refusedToServe
                process = nil
                if refused {
                    pool.logger.error("a PDF worker refused to serve: it could not enter its sandbox (see its stderr)")
                    return .failure(PDFWorkError.unavailable("the PDF worker could not enter its sandbox"))
                }
                pool.workerReplaced(error, document: document)
                return .failure(error)
            }
        }

        /// The `length` bytes of a worker's result memfd (nil when it is not a regular file that long).
        private static func contents(of descriptor: Int32, length: Int) -> Data? {
            Data(memoryFile: descriptor, length: length)
        }
    }
}

extension Duration {
    /// The duration for Dispatch.
    var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int(components.seconds) * 1_000_000_000 + Int(components.attoseconds / 1_000_000_000))
    }
}
