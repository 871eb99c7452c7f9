/// What `quire serve` tells its supervisor (systemd's notification protocol, `sd_notify(3)`), as a pure state
/// machine: events in (the server listens, the status changed, the watchdog timer fired, a reload was asked for or
/// finished, the service stops), the datagrams to send and the work to start out.
///
/// It sees no socket, clock or signal: the monotonic time is passed in, and ``SupervisorNotifier`` performs the
/// actions. Phases and their legal transitions: `starting` → `ready` (``listening(now:)``); `ready` → `reloading`
/// (``reloadRequested(now:)``); `reloading` → `ready` (``reloadFinished(now:)``); any phase → `stopping`
/// (``stopping()``), which is final. An event that makes no sense in the current phase (a second `listening`, a
/// `reloadFinished` with no reload running) sends nothing.
public struct SupervisorNotifications: Sendable {
    /// What the executor does after an event.
    public enum Action: Equatable, Sendable {
        /// Send this datagram (newline-separated `KEY=VALUE` assignments) to `NOTIFY_SOCKET`.
        case send(String)
        /// Fire ``watchdogTick()`` every interval from now on (half of the supervisor's `WATCHDOG_USEC`).
        case startWatchdog(every: Duration)
        /// Reload the configuration, then report ``reloadFinished(now:)``.
        case reload
    }

    /// Where the service is in its life.
    enum Phase: Equatable {
        /// Started, not yet accepting connections.
        case starting
        /// Accepting connections (`READY=1` sent).
        case ready
        /// Reloading its configuration (`RELOADING=1` sent, `READY=1` not yet).
        case reloading
        /// Stopping (`STOPPING=1` sent); final.
        case stopping
    }

    private(set) var phase = Phase.starting
    /// The supervisor's watchdog interval for this process, nil when it watches none.
    private let watchdogInterval: Duration?
    /// The status line to report: sent with `READY=1`, or on its own when it changes while ready.
    private var status: String?
    /// The status line the supervisor last got.
    private var statusSent: String?
    /// A reload was asked for while starting or reloading: it runs once the service is ready.
    private var reloadPending = false

    /// Makes the machine of a service the supervisor watches every `watchdogInterval` (nil: no watchdog).
    public init(watchdogInterval: Duration?) {
        self.watchdogInterval = watchdogInterval
    }

    /// The service started: the watchdog timer starts (pings are due from the start, as systemd arms the watchdog
    /// when it starts the process), at half the supervisor's interval as `sd_watchdog_enabled(3)` advises.
    public mutating func started() -> [Action] {
        guard let watchdogInterval, phase == .starting else { return [] }
        return [.startWatchdog(every: watchdogInterval / 2)]
    }

    /// The server accepts connections: `READY=1` with the status, then a reload asked for meanwhile.
    public mutating func listening(now: UInt64) -> [Action] {
        switch phase {
        case .starting:
            phase = .ready
            return [.send(readyDatagram())] + startPendingReload(now: now)
        case .ready, .reloading, .stopping:
            return []
        }
    }

    /// The status line changed (documents, conflicts, workers): sent at once while ready, else kept for the next
    /// `READY=1`. An unchanged line sends nothing.
    public mutating func statusChanged(_ line: String) -> [Action] {
        switch phase {
        case .starting, .reloading:
            status = line
            return []
        case .ready:
            status = line
            guard line != statusSent else { return [] }
            statusSent = line
            return [.send("STATUS=\(line)")]
        case .stopping:
            return []
        }
    }

    /// The watchdog timer fired: `WATCHDOG=1`, in every phase (stopping too: the stop may take a while).
    public mutating func watchdogTick() -> [Action] {
        watchdogInterval == nil ? [] : [.send("WATCHDOG=1")]
    }

    /// SIGHUP: `RELOADING=1` with the monotonic time `now` (µs, `CLOCK_MONOTONIC`), then the reload. While starting
    /// or reloading, the reload waits for the service to be ready; while stopping, it is dropped.
    public mutating func reloadRequested(now: UInt64) -> [Action] {
        switch phase {
        case .starting, .reloading:
            reloadPending = true
            return []
        case .ready:
            phase = .reloading
            return [.send("RELOADING=1\nMONOTONIC_USEC=\(now)\nSTATUS=reloading the configuration"), .reload]
        case .stopping:
            return []
        }
    }

    /// The reload finished (applied or refused, the log says which): `READY=1` with the status, then the next
    /// reload if one was asked for meanwhile.
    public mutating func reloadFinished(now: UInt64) -> [Action] {
        switch phase {
        case .reloading:
            phase = .ready
            return [.send(readyDatagram())] + startPendingReload(now: now)
        case .starting, .ready, .stopping:
            return []
        }
    }

    /// SIGTERM or SIGINT: `STOPPING=1`, once; nothing but watchdog pings after it.
    public mutating func stopping() -> [Action] {
        switch phase {
        case .starting, .ready, .reloading:
            phase = .stopping
            return [.send("STOPPING=1\nSTATUS=stopping")]
        case .stopping:
            return []
        }
    }

    /// `READY=1`, with the status line when there is one (which then counts as sent).
    private mutating func readyDatagram() -> String {
        guard let status else { return "READY=1" }
        statusSent = status
        return "READY=1\nSTATUS=\(status)"
    }

    private mutating func startPendingReload(now: UInt64) -> [Action] {
        guard reloadPending else { return [] }
        reloadPending = false
        return reloadRequested(now: now)
    }
}
