/// Decides which queued PDF request runs on which worker: a pure state machine (events in, actions out, no
/// I/O, no clock, no lock: `now` is passed in), run by ``PDFWorkerPool``.
///
/// Fairness within a document: each document (the `key`) has its own queue, served first come first served;
/// documents take turns round-robin; a document never has more than ``maximumRunningPerKey`` requests running.
/// A document's queue is bounded (``maximumQueuedPerKey``): a request beyond it is rejected at once, never left
/// to wait without end.
///
/// Fairness across documents: a document whose request ran ``slowRun`` or longer (or is running that long now)
/// is *heavy* for ``penalty`` after it. Heavy documents wait behind every other document's requests, and all of
/// them together never hold more than ``heavyCapacity`` workers, so any number of crafted documents leave at
/// least one worker (a quarter of them from eight on) to the others. A document is known to be heavy only once one
/// of its requests has run ``slowRun``: each new crafted document can hold one worker for one slow run before it
/// waits behind the rest.
///
/// Background requests (the search index's text extraction, ``Priority/background``) run only on background slots
/// (``backgroundSlotCount`` of them, numbered after the interactive ones), which interactive requests never take:
/// the executor starts their processes at the lowest priority of the normal policy (nice 19, 1.5 % of a processor
/// that work at nice 0 wants too), so extraction uses what the processors leave and an interactive request never
/// waits for a worker, and hardly for a processor, because of it.
/// They wait in one queue of their own, first come first served, and count neither towards a document's running
/// limit nor towards its heaviness. With no background slot, a background request is rejected at once.
///
/// Which idle worker: the one that last served the same document, else the one idle the shortest time. A worker
/// keeps the documents it opened lately and its process is warm (its pages in memory, its CPU not asleep);
/// handing requests round the slots instead made every request wake a worker that had slept longest, measured at
/// 1.4-1.5x the in-process latency of a page's text against 1.2-1.3x this way.
struct PDFWorkScheduler {
    /// A request's id, given by the executor.
    typealias JobID = UInt64
    /// A point in time, read by the executor.
    typealias Instant = ContinuousClock.Instant

    /// How urgent a request is.
    enum Priority: Sendable, Equatable {
        /// A person or a program waits for it.
        case interactive
        /// Nobody waits (indexing): it runs on the background slots only.
        case background
    }

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
    /// How long a request runs before its document counts as heavy.
    let slowRun: Duration
    /// How long a document stays heavy after its last slow request.
    let penalty: Duration
    /// How many workers heavy documents may hold together: all but one up to seven workers, three quarters from
    /// eight on (never less than one).
    let heavyCapacity: Int
    /// How many interactive slots there are (0 ..< slotCount).
    let slotCount: Int
    /// How many background slots there are (slotCount ..< slotCount + backgroundSlotCount).
    let backgroundSlotCount: Int

    /// A running request: its document, when it started, whether its document was heavy then (or became so),
    /// whether it is a background request.
    private struct Run {
        let key: String
        let startedAt: Instant
        var heavy: Bool
        var background = false
    }

    /// Idle interactive slots, the one idle the shortest time last.
    private var idleSlots: [Int]
    /// Idle background slots, the one idle the shortest time last.
    private var idleBackgroundSlots: [Int]
    /// The document each slot served last.
    private var lastKeyOfSlot: [Int: String] = [:]
    /// What each busy slot runs.
    private var runs: [Int: Run] = [:]
    private var queues: [String: [JobID]] = [:]
    private var running: [String: Int] = [:]
    /// Keys with waiting requests, in turn order, and the same keys as a set.
    private var turns: [String] = []
    private var keysInTurn: Set<String> = []
    private var keyOfJob: [JobID: String] = [:]
    /// Until when each heavy document is heavy.
    private var heavyUntil: [String: Instant] = [:]
    /// How many entries of ``heavyUntil`` there may be before the expired ones are dropped.
    private var heavyPruneAt = 64
    /// Background requests waiting, oldest first, with their documents.
    private var background: [(job: JobID, key: String)] = []

    /// A scheduler over `slots` idle interactive worker slots (0 ..< slots) and `backgroundSlots` idle background
    /// ones (slots ..< slots + backgroundSlots).
    init(
        slots: Int, backgroundSlots: Int = 0, maximumRunningPerKey: Int = 1, maximumQueuedPerKey: Int = 16,
        slowRun: Duration = .seconds(1), penalty: Duration = .seconds(60)
    ) {
        let slots = max(0, slots)
        let backgroundSlots = max(0, backgroundSlots)
        idleSlots = Array((0..<slots).reversed())
        idleBackgroundSlots = Array((slots..<slots + backgroundSlots).reversed())
        self.maximumRunningPerKey = max(1, maximumRunningPerKey)
        self.maximumQueuedPerKey = max(0, maximumQueuedPerKey)
        self.slowRun = slowRun
        self.penalty = penalty
        heavyCapacity = max(1, slots - max(1, slots / 4))
        slotCount = slots
        backgroundSlotCount = backgroundSlots
    }

    /// Interactive requests waiting, for the metrics.
    var queuedCount: Int { queues.values.reduce(0) { $0 + $1.count } }

    /// Background requests waiting.
    var backgroundQueuedCount: Int { background.count }

    /// How many slots run a background request.
    var backgroundRunning: Int { runs.values.reduce(0) { $0 + ($1.background ? 1 : 0) } }

    /// Requests waiting for `key`.
    func queued(for key: String) -> Int { queues[key]?.count ?? 0 }

    /// Whether document `key` is heavy at `now` (its requests wait behind the others').
    func isHeavy(_ key: String, at now: Instant) -> Bool {
        guard let until = heavyUntil[key] else { return false }
        return until > now
    }

    /// How many interactive slots run a request.
    var runningCount: Int { runs.count - backgroundRunning }

    /// How many slots run a heavy document's request.
    var heavyRunning: Int { runs.values.reduce(0) { $0 + ($1.heavy ? 1 : 0) } }

    /// A request for document `key` arrived at `now`. An id given twice is rejected.
    mutating func submitted(_ job: JobID, key: String, priority: Priority = .interactive, now: Instant) -> [Action] {
        guard keyOfJob[job] == nil, !background.contains(where: { $0.job == job }) else {
            return [.rejectQueueFull(job)]
        }
        if priority == .background {
            guard backgroundSlotCount > 0 else { return [.rejectQueueFull(job)] }
            background.append((job, key))
            return dispatch(now: now)
        }
        guard queued(for: key) < maximumQueuedPerKey else { return [.rejectQueueFull(job)] }
        keyOfJob[job] = key
        queues[key, default: []].append(job)
        if keysInTurn.insert(key).inserted { turns.append(key) }
        return dispatch(now: now)
    }

    /// Slot `slot` finished a request of document `key` at `now` (done, failed or killed): it is idle again; a
    /// request that ran ``slowRun`` or longer makes its document heavy. A slot that is already idle, or that runs
    /// another document, is ignored.
    mutating func finished(slot: Int, key: String, now: Instant) -> [Action] {
        guard let run = runs[slot], run.key == key else { return [] }
        if run.background {
            runs[slot] = nil
            idleBackgroundSlots.append(slot)
            return dispatch(now: now)
        }
        guard let count = running[key], count > 0 else { return [] }
        if now - run.startedAt >= slowRun { markHeavy(key, now: now) }
        runs[slot] = nil
        running[key] = count == 1 ? nil : count - 1
        idleSlots.append(slot)
        return dispatch(now: now)
    }

    /// A waiting request is withdrawn (its caller gave up). Returns false when it is not waiting (unknown, or
    /// already started).
    mutating func withdrawn(_ job: JobID) -> Bool {
        if let index = background.firstIndex(where: { $0.job == job }) {
            background.remove(at: index)
            return true
        }
        guard let key = keyOfJob[job], var queue = queues[key], let index = queue.firstIndex(of: job) else {
            return false
        }
        queue.remove(at: index)
        keyOfJob[job] = nil
        if queue.isEmpty {
            queues[key] = nil
            keysInTurn.remove(key)
            turns.removeAll { $0 == key }
        } else {
            queues[key] = queue
        }
        return true
    }

    /// Document `key` is heavy until `penalty` after `now`; its running requests count as heavy.
    private mutating func markHeavy(_ key: String, now: Instant) {
        heavyUntil[key] = now + penalty
        for (slot, run) in runs where run.key == key && !run.heavy && !run.background { runs[slot]?.heavy = true }
        if heavyUntil.count >= heavyPruneAt {
            heavyUntil = heavyUntil.filter { $0.value > now }
            heavyPruneAt = max(64, heavyUntil.count * 2)
        }
    }

    /// Starts what can start: first the requests of documents that are not heavy, in turn, then (while heavy
    /// documents hold fewer than ``heavyCapacity`` workers) those of heavy ones, each on an idle interactive slot,
    /// until either runs out; then background requests on idle background slots. A request running ``slowRun`` or longer makes its document heavy here.
    private mutating func dispatch(now: Instant) -> [Action] {
        for (_, run) in runs where !run.heavy && !run.background && now - run.startedAt >= slowRun {
            markHeavy(run.key, now: now)
        }
        var actions: [Action] = []
        for heavyPass in [false, true] {
            var skipped = 0
            while !idleSlots.isEmpty, skipped < turns.count {
                if heavyPass, heavyRunning >= heavyCapacity { break }
                let key = turns.removeFirst()
                let heavy = isHeavy(key, at: now)
                guard heavy == heavyPass, running[key, default: 0] < maximumRunningPerKey, var queue = queues[key],
                    !queue.isEmpty
                else {
                    turns.append(key)
                    skipped += 1
                    continue
                }
                let job = queue.removeFirst()
                keyOfJob[job] = nil
                queues[key] = queue.isEmpty ? nil : queue
                if queue.isEmpty { keysInTurn.remove(key) } else { turns.append(key) }
                running[key, default: 0] += 1
                let chosen = idleSlots.lastIndex { lastKeyOfSlot[$0] == key } ?? idleSlots.count - 1
                let slot = idleSlots.remove(at: chosen)
                lastKeyOfSlot[slot] = key
                runs[slot] = Run(key: key, startedAt: now, heavy: heavy)
                actions.append(.start(job, slot: slot))
                skipped = 0
            }
        }
        // Background requests on the background slots.
        while !background.isEmpty, !idleBackgroundSlots.isEmpty {
            let (job, key) = background.removeFirst()
            let chosen = idleBackgroundSlots.lastIndex { lastKeyOfSlot[$0] == key } ?? idleBackgroundSlots.count - 1
            let slot = idleBackgroundSlots.remove(at: chosen)
            lastKeyOfSlot[slot] = key
            runs[slot] = Run(key: key, startedAt: now, heavy: false, background: true)
            actions.append(.start(job, slot: slot))
        }
        return actions
    }
}
