import Logging
import QuireSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The executor of ``SupervisorNotifications``: feeds it the service's events under a lock, then, outside the
/// lock, sends its datagrams to `NOTIFY_SOCKET`, runs the watchdog timer and the reloads.
///
/// Without `NOTIFY_SOCKET` it sends nothing, and reloads still run (SIGHUP works outside systemd too).
public final class SupervisorNotifier: Sendable {
    private let machine: Mutex<SupervisorNotifications>
    private let socket: NotifySocket?
    private let address: SupervisorEnvironment.NotifyAddress?
    private let reload: @Sendable () async -> Void
    private let watchdog = Mutex<Task<Void, Never>?>(nil)
    private let logger: Logger

    /// Makes the notifier for what `environment` says, which runs `reload` on each reload.
    /// - Throws: ``SystemCallError`` (`socket`) when the notification socket cannot be made.
    public init(
        environment: SupervisorEnvironment, logger: Logger, reload: @escaping @Sendable () async -> Void
    ) throws(SystemCallError) {
        machine = Mutex(SupervisorNotifications(watchdogInterval: environment.watchdogInterval))
        address = environment.notifyAddress
        if let address = environment.notifyAddress {
            socket = try NotifySocket(address: address)
        } else {
            socket = nil
        }
        self.reload = reload
        self.logger = logger
    }

    deinit {
        watchdog.withLock { $0?.cancel() }
    }

    /// The service started: the watchdog timer starts when the supervisor watches this process.
    public func started() { feed { $0.started() } }

    /// The server accepts connections.
    public func listening() { feed { $0.listening(now: Self.monotonicMicroseconds()) } }

    /// The status line (documents, conflicts, workers) is now `line`.
    public func statusChanged(_ line: String) { feed { $0.statusChanged(line) } }

    /// SIGHUP.
    public func reloadRequested() { feed { $0.reloadRequested(now: Self.monotonicMicroseconds()) } }

    /// SIGTERM or SIGINT.
    public func stopping() { feed { $0.stopping() } }

    /// The process is about to exit: the watchdog timer stops.
    public func close() {
        watchdog.withLock { $0?.cancel() }
    }

    private func watchdogTick() { feed { $0.watchdogTick() } }

    private func reloadFinished() { feed { $0.reloadFinished(now: Self.monotonicMicroseconds()) } }

    /// One executor step: the event under the lock, its actions after.
    private func feed(_ event: (inout SupervisorNotifications) -> [SupervisorNotifications.Action]) {
        let actions = machine.withLock { event(&$0) }
        for action in actions { perform(action) }
    }

    private func perform(_ action: SupervisorNotifications.Action) {
        switch action {
        case .send(let datagram):
            guard let socket else { return }
            do {
                try socket.send(datagram)
            } catch {
                logger.warning(
                    "cannot notify the supervisor",
                    metadata: ["address": "\(address?.description ?? "")", "error": "\(error)"])
            }
        case .startWatchdog(let interval):
            let timer = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled, let self else { return }
                    self.watchdogTick()
                }
            }
            watchdog.withLock { running in
                running?.cancel()
                running = timer
            }
        case .reload:
            Task {
                await reload()
                reloadFinished()
            }
        }
    }

    /// `CLOCK_MONOTONIC` in microseconds, the clock `MONOTONIC_USEC=` is read on (Swift's `ContinuousClock` is
    /// `CLOCK_BOOTTIME` on Linux).
    static func monotonicMicroseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1_000
    }
}
