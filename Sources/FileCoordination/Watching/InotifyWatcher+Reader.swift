import QuireSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension InotifyWatcher {
    /// The executor of a watcher: owns the descriptors and the reader thread, feeds the ``WatchTable`` and the
    /// ``ChangeDebouncer`` under one lock, performs their actions and calls back outside the lock.
    ///
    /// The thread `poll`s the inotify descriptor and a wake-up pipe with a timeout that ends at the earliest
    /// window deadline or poll scan. Reading the descriptor, `inotify_add_watch` and `inotify_rm_watch` run under
    /// the lock: the table and the kernel agree on which watch descriptor is which directory, and an event is
    /// stamped with the instant it was read, in the same order as the begin and end of coordinated writes
    /// (which read what is queued first, so a write's own events are always read before its end).
    final class Reader: Sendable {
        /// Everything the lock protects.
        private struct State {
            var table: WatchTable
            var debouncer: ChangeDebouncer
            var descriptor: Int32?
            var unavailable: SystemCallError?
            var thread: pthread_t?
            var stopped = false
            var lastWriteID: UInt64 = 0
            /// The buffer inotify is read into; used only under the lock.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        }

        private let state: Mutex<State>
        private let system: InotifySystem
        private let onWarning: @Sendable (String) -> Void
        private let onEvent: @Sendable ([WatchedChange]) -> Void
        private let wakeRead: Int32
        private let wakeWrite: Int32

        /// Creates the descriptors; a failure is reported through `onWarning` and the watcher degrades to polling.
        init(
            table: WatchTable, debouncer: ChangeDebouncer, system: InotifySystem,
            onWarning: @escaping @Sendable (String) -> Void, onEvent: @escaping @Sendable ([WatchedChange]) -> Void
        ) {
            var warnings: [String] = []
            var initial = State(table: table, debouncer: debouncer)
            switch system.initialize() {
            case .success(let descriptor):
                initial.descriptor = descriptor
            case .failure(let error):
                initial.unavailable = error
                warnings.append("\(error); every watched directory will be polled")
            }
            do {
                (wakeRead, wakeWrite) = try Inotify.makeWakePipe()
            } catch {
                (wakeRead, wakeWrite) = (-1, -1)
                warnings.append(
                    "\(error); the reader thread cannot be woken, so it looks for new work at least every 100 ms")
            }
            state = Mutex(initial)
            self.system = system
            self.onWarning = onWarning
            self.onEvent = onEvent
            warnings.forEach(onWarning)
        }

        deinit {
            for descriptor in [wakeRead, wakeWrite] where descriptor >= 0 { SystemCall.close(descriptor) }
            state.withLock { state in
                if let descriptor = state.descriptor { SystemCall.close(descriptor) }
                state.buffer.deallocate()
            }
        }

        /// Starts the reader thread, which holds a reference to the reader until it ends.
        func start() {
            let thread: pthread_t
            do {
                thread = try SystemThread.start(name: "quire.inotify", joinable: true) { [self] in run() }
            } catch {
                onWarning("\(error): the watcher reports nothing")
                return
            }
            state.withLock { $0.thread = thread }
        }

        /// Stops the thread and waits for it, unless called from it. Later calls return at once.
        func stop() {
            let thread: pthread_t? = state.withLock { state in
                guard !state.stopped else { return nil }
                state.stopped = true
                return state.thread
            }
            if wakeWrite >= 0 { Inotify.wake(wakeWrite) }
            guard let thread else { return }
            if pthread_equal(thread, pthread_self()) != 0 {
                pthread_detach(thread)
            } else {
                SystemThread.join(thread)
            }
        }

        // MARK: Requests from any thread

        /// Registers (or moves) a token; see ``InotifyWatcher/watch(_:token:)``.
        func watch(directory: String, name: String, token: UInt64) throws(InotifyWatcherError) {
            let now = ContinuousClock.now
            let (warnings, rescheduled) = try state.withLock { state throws(InotifyWatcherError) in
                guard !state.stopped else { throw .closed }
                let watch = addWatch(directory, in: state)
                let snapshot = (try? watch.get()) == nil ? Inotify.snapshot(of: WatchTable.join(directory, name)) : nil
                let scan = state.table.nextScan
                let actions = state.table.register(
                    token: token, directory: directory, name: name, watch: watch, snapshot: snapshot, at: now)
                return (perform(actions, in: &state, at: now), scan != state.table.nextScan)
            }
            if rescheduled { wake() }
            warnings.forEach(onWarning)
        }

        /// Unregisters a token.
        func unwatch(token: UInt64) {
            let now = ContinuousClock.now
            let warnings = state.withLock { state in
                state.debouncer.tokenRemoved(token)
                return perform(state.table.unregister(token: token), in: &state, at: now)
            }
            warnings.forEach(onWarning)
        }

        /// Starts suppressing `path`, after reading the events already queued (they happened before).
        func beginWrite(path: String) -> CoordinatedWrite {
            let (write, warnings, rescheduled) = state.withLock { state in
                let (warnings, rescheduled) = readQueuedEventsOffThread(&state)
                state.lastWriteID += 1
                state.debouncer.writeBegan(id: state.lastWriteID, path: path, at: .now)
                return (CoordinatedWrite(id: state.lastWriteID, path: path), warnings, rescheduled)
            }
            if rescheduled { wake() }
            warnings.forEach(onWarning)
            return write
        }

        /// Ends a suppression after reading the events already queued (the write's own); its grace period needs
        /// no timer (it is checked when events arrive).
        func endWrite(_ write: CoordinatedWrite) {
            let (warnings, rescheduled) = state.withLock { state in
                let result = readQueuedEventsOffThread(&state)
                state.debouncer.writeEnded(id: write.id, at: .now)
                return result
            }
            if rescheduled { wake() }
            warnings.forEach(onWarning)
        }

        /// Reads what is queued from a thread other than the reader, which may be asleep in `poll` without a
        /// deadline (these events no longer make the descriptor readable): tells whether it must be woken.
        private func readQueuedEventsOffThread(_ state: inout State) -> (warnings: [String], rescheduled: Bool) {
            let deadline = state.debouncer.nextDeadline
            let warnings = readQueuedEvents(&state)
            return (warnings, state.debouncer.nextDeadline != deadline)
        }

        /// The number of kernel watches.
        var watchCount: Int { state.withLock { $0.table.watchCount } }

        /// The inotify descriptor, if open.
        var inotifyDescriptor: Int32? { state.withLock { $0.descriptor } }

        /// Handles bytes as if read from inotify, then wakes the thread so it sees the new deadlines.
        func ingest(_ bytes: [UInt8]) {
            let events = Result { () throws(InotifyParseError) in try InotifyEvent.parse(bytes) }
            state.withLock { handle(events, in: &$0) }.forEach(onWarning)
            wake()
        }

        // MARK: The reader thread

        private func run() {
            while true {
                let now = ContinuousClock.now
                let (descriptor, deadline, stopped) = state.withLock { state in
                    let deadlines = [state.debouncer.nextDeadline, state.table.nextScan].compactMap { $0 }
                    return (state.descriptor, deadlines.min(), state.stopped)
                }
                if stopped { break }
                var descriptors = [
                    pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: descriptor ?? -1, events: Int16(POLLIN), revents: 0),
                ]
                do {
                    // Without a wake-up pipe, look at `stopped` at least every 100 ms.
                    let timeout = Self.milliseconds(from: now, to: deadline)
                    try Inotify.poll(
                        &descriptors, timeout: wakeRead >= 0 ? timeout : timeout < 0 ? 100 : min(timeout, 100))
                } catch {
                    onWarning("\(error); the watcher stopped")
                    break
                }
                if descriptors[0].revents != 0 { Inotify.drain(wakeRead) }
                if descriptors[1].revents != 0 {
                    state.withLock { readQueuedEvents(&$0) }.forEach(onWarning)
                }
                deliverDueChanges()
            }
            state.withLock { state in
                if let descriptor = state.descriptor { SystemCall.close(descriptor) }
                state.descriptor = nil
            }
        }

        /// Reads and handles what is queued on the inotify descriptor (a bounded number of buffers, so deadlines
        /// are not starved); returns the warnings to deliver after the lock.
        private func readQueuedEvents(_ state: inout State) -> [String] {
            guard let descriptor = state.descriptor else { return [] }
            var warnings: [String] = []
            for _ in 0..<16 {
                let count: Int?
                do {
                    count = try Inotify.read(descriptor, into: state.buffer)
                } catch {
                    return warnings + perform(state.table.eventsLost("\(error)"), in: &state, at: .now)
                }
                guard let count, count > 0 else { break }
                let bytes = UnsafeRawBufferPointer(rebasing: state.buffer[..<count])
                let events = Result { () throws(InotifyParseError) in try InotifyEvent.parse(bytes) }
                warnings += handle(events, in: &state)
            }
            return warnings
        }

        /// Handles parsed events (or an unreadable buffer) at the current instant.
        private func handle(_ events: Result<[InotifyEvent], InotifyParseError>, in state: inout State) -> [String] {
            let now = ContinuousClock.now
            switch events {
            case .success(let events):
                return perform(state.table.handle(events, at: now), in: &state, at: now)
            case .failure(let error):
                return perform(state.table.eventsLost("\(error)"), in: &state, at: now)
            }
        }

        /// Runs a due poll scan, closes due windows and calls back, unless stopped meanwhile.
        private func deliverDueChanges() {
            let now = ContinuousClock.now
            let (changes, warnings, stopped) = state.withLock { state in
                var warnings: [String] = []
                if let scan = state.table.nextScan, scan <= now { warnings = self.scan(&state, at: now) }
                return (state.debouncer.deadlineReached(at: now), warnings, state.stopped)
            }
            guard !stopped else { return }
            warnings.forEach(onWarning)
            if !changes.isEmpty { onEvent(changes) }
        }

        /// Retries inotify and the watch of every polled directory, then stats their paths.
        private func scan(_ state: inout State, at now: ContinuousClock.Instant) -> [String] {
            var warnings: [String] = []
            if state.descriptor == nil, case .success(let descriptor) = system.initialize() {
                state.descriptor = descriptor
                state.unavailable = nil
                warnings.append("inotify is available again")
            }
            for (directory, paths) in state.table.polledPaths {
                let watch = addWatch(directory, in: state)
                let snapshots = paths.mapValues { Inotify.snapshot(of: $0) }
                let actions = state.table.scanned(directory: directory, watch: watch, snapshots: snapshots, at: now)
                warnings += perform(actions, in: &state, at: now)
            }
            state.table.scanFinished(at: now)
            return warnings
        }

        // MARK: Helpers

        private func addWatch(_ directory: String, in state: State) -> Result<Int32, SystemCallError> {
            guard let descriptor = state.descriptor else {
                return .failure(state.unavailable ?? SystemCallError(call: "inotify_init1", errno: EBADF, path: nil))
            }
            return system.addWatch(descriptor, directory)
        }

        /// Performs table actions under the lock; returns the warnings to deliver after it.
        private func perform(
            _ actions: [WatchTable.Action], in state: inout State, at now: ContinuousClock.Instant
        ) -> [String] {
            var warnings: [String] = []
            for action in actions {
                switch action {
                case .report(let change):
                    state.debouncer.changeObserved(change, at: now)
                case .removeWatch(let watch):
                    if let descriptor = state.descriptor { Inotify.removeWatch(descriptor, watch) }
                case .warn(let warning):
                    warnings.append(warning)
                }
            }
            return warnings
        }

        private func wake() {
            if wakeWrite >= 0 { Inotify.wake(wakeWrite) }
        }

        /// A `poll` timeout reaching `deadline`, rounded up to whole milliseconds; -1 without a deadline.
        static func milliseconds(from now: ContinuousClock.Instant, to deadline: ContinuousClock.Instant?) -> Int32 {
            guard let deadline else { return -1 }
            let remaining = now.duration(to: deadline)
            guard remaining > .zero else { return 0 }
            let (seconds, attoseconds) = remaining.components
            let perMillisecond: Int64 = 1_000_000_000_000_000
            return Int32(clamping: seconds * 1000 + (attoseconds + perMillisecond - 1) / perMillisecond)
        }
    }
}
