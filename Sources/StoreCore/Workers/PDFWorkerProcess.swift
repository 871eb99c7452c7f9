import CQuireLinux
import Foundation
import PDFWorkerWire
import QuireSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One `quire-pdf worker` child process and the socket to it. Used from one thread at a time (its slot's).
final class PDFWorkerProcess {
    /// The child's process id.
    let pid: pid_t
    private let socket: Int32
    private var isReaped = false
    /// The exit status, once the process exited by itself (not by a signal).
    private(set) var exitStatus: Int32?
    /// Where replies are received: made once, not zeroed for every request (64 KiB).
    private var replyBuffer = [UInt8](repeating: 0, count: PDFWorkerMessage.maximumReplySize)
    /// How long to poll for a reply, learned from the replies of this process (at most the `poll` an exchange is
    /// given): a reply that keeps coming long after the window (the worker short of a processor) stops the polling.
    private var replyWindow = AdaptivePollWindow(maximum: .zero)

    /// The status `quire-pdf worker` exits with when it cannot confine itself (its sandbox) and refuses to
    /// serve: not a verdict on any PDF.
    static let refusedToServe: Int32 = 70

    private init(pid: pid_t, socket: Int32) {
        self.pid = pid
        self.socket = socket
    }

    deinit {
        SystemCall.close(socket)
        if !isReaped {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = try? SystemCall.retryingOnInterrupt("waitpid") { waitpid(pid, &status, 0) }
        }
    }

    /// Starts `executable worker` with a `SOCK_SEQPACKET` socket as its descriptor 3, an empty signal mask, no
    /// other inherited descriptor and the environment without `QUIRE_*` variables (the token stays here) and
    /// without Swift's backtracer; with `backgroundPriority`, told to take nice 19 before its first request (the
    /// lowest priority of the normal policy: against work at nice 0 it gets 1.5 % of a processor; an unprivileged
    /// process cannot raise it again, so such a worker serves background work only); `textThreads` threads
    /// extract the pages of one texts request.
    /// - Throws: ``PDFWorkError/unavailable(_:)`` when the socket or the process cannot be made.
    static func start(
        executable: String, memoryLimitMiB: Int, idlePoll: Duration = .microseconds(1500), backgroundPriority: Bool = false,
        textThreads: Int = 1
    ) throws(PDFWorkError) -> PDFWorkerProcess {
        // From the spawner's thread: a worker dies with the thread that started it (PR_SET_PDEATHSIG).
        try WorkerSpawner.shared.run { () throws(PDFWorkError) -> PDFWorkerProcess in
            try startHere(
                executable: executable, memoryLimitMiB: memoryLimitMiB, idlePoll: idlePoll, backgroundPriority: backgroundPriority,
                textThreads: textThreads)
        }
    }

    /// ``start(executable:memoryLimitMiB:idlePoll:backgroundPriority:textThreads:)`` on the calling thread.
    private static func startHere(
        executable: String, memoryLimitMiB: Int, idlePoll: Duration, backgroundPriority: Bool, textThreads: Int
    ) throws(PDFWorkError) -> PDFWorkerProcess {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0
        else { throw .unavailable("socketpair: \(String(cString: strerror(errno)))") }
        defer { SystemCall.close(ends[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 3)
        CQuire_spawnCloseFrom(&actions, 4)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        CQuire_spawnResetSignals(&attributes)
        let pollMicroseconds = idlePoll.components.seconds * 1_000_000 + idlePoll.components.attoseconds / 1_000_000_000_000
        let arguments =
            [executable, "worker", "--memory-limit", String(memoryLimitMiB), "--poll-microseconds",
             String(pollMicroseconds)] + (backgroundPriority ? ["--background-priority"] : [])
            + (textThreads > 1 ? ["--text-threads", String(textThreads)] : [])
        // No QUIRE_* variable (the token stays in the service), none of the supervisor's, and no Swift backtracer: a crash ends the
        // worker at once.
        var variables = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("QUIRE_") && !Self.supervisorVariables.contains($0.key)
        }
        variables["SWIFT_BACKTRACE"] = "enable=no"
        let environment = variables.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let result = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
        }
        guard result == 0 else {
            SystemCall.close(ends[0])
            throw .unavailable("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return PDFWorkerProcess(pid: pid, socket: ends[0])
    }

    /// The variables a supervisor (systemd) gives the service alone: its handed-over sockets and its notification
    /// socket. A worker is given none of them, so it can neither take the sockets nor speak for the service.
    static let supervisorVariables: Set<String> = [
        "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "NOTIFY_SOCKET", "WATCHDOG_PID", "WATCHDOG_USEC",
    ]

    /// Sends `request` with `pdf` (and the edit log `edits`, unless it is -1) attached, and waits at most
    /// `deadline` for the reply, polling for it first for at most `poll` (the window adapts below it, from this
    /// process's replies: ``AdaptivePollWindow``).
    /// - Returns: the reply and the result's descriptor (-1 when none came).
    /// - Throws: ``PDFWorkError/deadlineExceeded(_:)`` (the caller kills the process),
    ///   ``PDFWorkError/workerCrashed(_:)`` when the process ended or answered with something that is not a
    ///   reply.
    func exchange(
        _ request: PDFWorkerRequest, pdf: Int32, edits: Int32 = -1, deadline: Duration, poll: Duration = .zero
    ) throws(PDFWorkError) -> (
        PDFWorkerReply, Int32
    ) {
        let packet: [UInt8]
        do {
            packet = try request.encoded()
        } catch {
            throw .refused(PDFWorkerReply(status: .invalidArgument, message: error.description))
        }
        let outgoing = edits >= 0 ? [pdf, edits] : [pdf]
        do throws(SystemCallError) {
            try SystemCall.retryingOnInterrupt("sendmsg") {
                packet.withUnsafeBytes { bytes in
                    CQuire_sendWithDescriptors(socket, bytes.baseAddress, bytes.count, outgoing, Int32(outgoing.count))
                }
            }
        } catch {
            throw .workerCrashed(ended())
        }
        let started = ContinuousClock.now
        // A poll of zero (another request runs) polls nothing and leaves the window as it is; a new bound (the
        // configuration reloaded) starts it again.
        if poll > .zero, replyWindow.maximum != poll { replyWindow = AdaptivePollWindow(maximum: poll) }
        let (caught, processorTime) = SystemCall.pollWithoutSleepingMeasured(
            socket, for: poll > .zero ? replyWindow.current : .zero)
        while !caught {
            let left = deadline - (ContinuousClock.now - started)
            guard left > .zero else { throw .deadlineExceeded(deadline) }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready: Int32
            do throws(SystemCallError) {
                ready = try SystemCall.retryingOnInterrupt("poll") { Glibc.poll(&descriptor, 1, milliseconds) }
            } catch {
                throw .workerCrashed(error.description)
            }
            if ready > 0 { break }
        }
        if poll > .zero {
            replyWindow.record(
                caught: caught, after: ContinuousClock.now - started, processorTime: processorTime)
        }
        var attached: Int32 = -1
        let connection = socket
        let count = replyBuffer.withUnsafeMutableBytes { bytes in
            try? SystemCall.retryingOnInterrupt("recvmsg") {
                CQuire_receiveWithDescriptor(connection, bytes.baseAddress, bytes.count, &attached)
            }
        }
        guard let count, count > 0 else { throw .workerCrashed(ended()) }
        do {
            return (try PDFWorkerReply(decoding: Array(replyBuffer[0..<count])), attached)
        } catch {
            if attached >= 0 { SystemCall.close(attached) }
            throw .workerCrashed("it sent a malformed reply (\(error))")
        }
    }

    /// Kills the process and waits for it.
    func stop() {
        guard !isReaped else { return }
        kill(pid, SIGKILL)
        _ = ended()
    }

    /// Waits for the process (which closed its end) and says how it ended.
    private func ended() -> String {
        guard !isReaped else { return "it had ended" }
        var status: Int32 = 0
        guard (try? SystemCall.retryingOnInterrupt("waitpid") { waitpid(pid, &status, 0) }) != nil else {
            isReaped = true
            return "it ended"
        }
        isReaped = true
        let signal = status & 0x7f
        if signal == 0 {
            exitStatus = (status >> 8) & 0xff
            return "it exited with status \((status >> 8) & 0xff)"
        }
        return "it was killed by signal \(signal)\(signal == SIGKILL ? " (out of memory, or killed)" : "")"
    }
}

/// Runs `body` with a NULL-terminated C array of `strings`.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    var pointers = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}

/// The one thread that starts worker processes, and never ends.
///
/// A worker asks the kernel to kill it when its parent dies (`PR_SET_PDEATHSIG`), so that no worker outlives the
/// service; but the kernel means the parent *thread*, the one that forked it. Started from a pool's or Dispatch's
/// threads, which end when idle, workers were killed at random (seen as SIGKILL in the middle of a request).
final class WorkerSpawner: Sendable {
    /// The process's spawner (its thread starts on first use).
    static let shared = WorkerSpawner()

    private typealias Job = @Sendable () -> Void
    private let jobs = Mutex<[Job]>([])
    private let ready = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            while true {
                ready.wait()
                let next = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                next?()
            }
        }
        thread.name = "quire.pdf-worker-spawner"
        thread.start()
    }

    /// Runs `body` on the spawner's thread and waits for it (the caller may block: never call it from the
    /// cooperative pool or an event loop).
    /// - Throws: what `body` throws.
    func run<T>(_ body: @escaping @Sendable () throws(PDFWorkError) -> T) throws(PDFWorkError) -> T {
        let box = SpawnResult<T>()
        let done = DispatchSemaphore(value: 0)
        jobs.withLock {
            $0.append {
                box.set(Result { () throws(PDFWorkError) -> T in try body() })
                done.signal()
            }
        }
        ready.signal()
        done.wait()
        return try box.get()
    }
}

/// A result handed from the spawner's thread to the caller (set before the caller wakes).
private final class SpawnResult<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<T, PDFWorkError>?

    func set(_ result: Result<T, PDFWorkError>) {
        lock.lock()
        defer { lock.unlock() }
        value = result
    }

    func get() throws(PDFWorkError) -> T {
        lock.lock()
        let result = value
        lock.unlock()
        guard let result else { throw .unavailable("the spawner gave no result") }
        return try result.get()
    }
}
