import Supervision

/// A supervisor that takes the notifications the machine's actions send, as systemd reads them, and rejects the
/// ones that cannot happen: readiness twice without a reload between, a reload without `MONOTONIC_USEC`, anything
/// but watchdog pings after `STOPPING=1`, a reload started that no `RELOADING=1` announced, a second timer.
struct SupervisorModel {
    struct Impossible: Error, CustomStringConvertible {
        let description: String
    }

    let watchdogInterval: Duration?
    private(set) var ready = false
    private(set) var reloading = false
    /// A reload the executor runs now (after `.reload`, until the test reports it finished).
    private(set) var reloadRunning = false
    private(set) var stopping = false
    private(set) var status: String?
    private(set) var readyCount = 0
    private(set) var reloadCount = 0
    private(set) var pings = 0
    private(set) var timerStarted = false
    private var lastMonotonic: UInt64 = 0

    init(watchdogInterval: Duration?) {
        self.watchdogInterval = watchdogInterval
    }

    mutating func apply(_ actions: [SupervisorNotifications.Action]) throws {
        for action in actions { try apply(action) }
    }

    mutating func apply(_ action: SupervisorNotifications.Action) throws {
        switch action {
        case .startWatchdog(let every):
            guard !timerStarted, let watchdogInterval, every == watchdogInterval / 2 else {
                throw Impossible(description: "a watchdog timer every \(every) (configured: \(String(describing: watchdogInterval)), started before: \(timerStarted))")
            }
            timerStarted = true
        case .reload:
            guard reloading, !reloadRunning else { throw Impossible(description: "a reload no RELOADING=1 announced") }
            reloadRunning = true
        case .send(let datagram):
            try receive(datagram)
        }
    }

    /// The executor reports the reload it ran as finished.
    mutating func reloadFinished() throws {
        guard reloadRunning else { throw Impossible(description: "a reload finished that was not running") }
        reloadRunning = false
    }

    private mutating func receive(_ datagram: String) throws {
        var fields: [String: String] = [:]
        for line in datagram.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else {
                throw Impossible(description: "not an assignment: \(line)")
            }
            let key = String(line[..<equals])
            guard fields[key] == nil else { throw Impossible(description: "\(key) twice in one datagram") }
            fields[key] = String(line[line.index(after: equals)...])
        }
        let known: Set<String> = ["READY", "RELOADING", "STOPPING", "STATUS", "WATCHDOG", "MONOTONIC_USEC"]
        if let unknown = fields.keys.first(where: { !known.contains($0) }) {
            throw Impossible(description: "unknown field \(unknown)")
        }
        if stopping && fields.keys.contains(where: { $0 != "WATCHDOG" }) {
            throw Impossible(description: "\(datagram) after STOPPING=1")
        }
        if let watchdog = fields["WATCHDOG"] {
            guard watchdog == "1", watchdogInterval != nil, fields.count == 1 else {
                throw Impossible(description: "WATCHDOG=\(watchdog) (watchdog: \(String(describing: watchdogInterval)))")
            }
            pings += 1
        }
        if let value = fields["RELOADING"] {
            guard value == "1", ready, !reloading, let monotonic = fields["MONOTONIC_USEC"].flatMap(UInt64.init),
                monotonic >= lastMonotonic
            else { throw Impossible(description: "RELOADING=1 now (ready \(ready), reloading \(reloading)): \(datagram)") }
            lastMonotonic = monotonic
            reloading = true
            reloadCount += 1
        } else if fields["MONOTONIC_USEC"] != nil {
            throw Impossible(description: "MONOTONIC_USEC without RELOADING=1")
        }
        if let value = fields["READY"] {
            guard value == "1", !ready || (reloading && !reloadRunning) else {
                throw Impossible(description: "READY=1 now (ready \(ready), reloading \(reloading), running \(reloadRunning))")
            }
            ready = true
            reloading = false
            readyCount += 1
        }
        if let value = fields["STOPPING"] {
            guard value == "1" else { throw Impossible(description: "STOPPING=\(value)") }
            stopping = true
        }
        if let line = fields["STATUS"] {
            if fields.count == 1 && line == status { throw Impossible(description: "the same status sent twice: \(line)") }
            status = line
        }
    }
}
