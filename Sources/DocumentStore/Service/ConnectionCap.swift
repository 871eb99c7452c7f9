import Hummingbird
import HummingbirdCore
import Logging

#if canImport(Glibc)
    import Glibc
#endif
import StoreCore

/// The most connections the service holds at once: at the cap it stops accepting (new clients wait in the
/// kernel's backlog) until a connection closes, and says so in one warning line, at most once a minute.
struct ConnectionCap: AvailableConnectionsDelegate {
    /// The cap.
    let maximum: Int
    private let logger: Logger
    private var count = 0
    private var lastWarning: ContinuousClock.Instant?

    /// A cap of `maximum` connections that warns on `logger`.
    init(maximum: Int, logger: Logger) {
        self.maximum = maximum
        self.logger = logger
    }

    /// Counts a connection; warns when it reaches the cap (rate-limited).
    mutating func connectionOpened() {
        count += 1
        guard count >= maximum else { return }
        let now = ContinuousClock.now
        if let lastWarning, now - lastWarning < .seconds(60) { return }
        lastWarning = now
        let advice = "raise maxConnections, or look for clients that hold connections"
        logger.warning(
            "connection cap reached: \(maximum) connections are open; new connections wait until one closes (\(advice))"
        )
    }

    /// Counts a closed connection.
    mutating func connectionClosed() {
        count = max(0, count - 1)
    }

    /// True below the cap.
    func isAcceptingNewConnections() -> Bool {
        count < maximum
    }

    /// Raises the process's soft limit of open files (`RLIMIT_NOFILE`) to its hard limit, and returns the cap
    /// that fits under it: `configured`, or the limit less a headroom for the store's own files (a quarter of the
    /// limit, at most 1024), whichever is smaller.
    static func fitting(_ configured: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return configured }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        guard limit.rlim_cur != rlim_t.max else { return configured }  // RLIM_INFINITY
        let files = Int(clamping: limit.rlim_cur)
        let headroom = min(1024, files / 4)
        return max(1, min(configured, files - headroom))
    }
}
