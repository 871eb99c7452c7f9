/// How the event feed resumes after its connection drops: how often it tries and how long it waits between
/// tries (doubling from ``initialDelay`` up to ``maximumDelay``, or the `retry:` time the service asked for).
public struct ReconnectPolicy: Sendable, Hashable {
    /// How many attempts in a row may fail before the feed gives up with
    /// ``StoreClientError/eventStreamLost(server:attempts:reason:)``.
    public var maximumAttempts: Int
    /// The wait before the first attempt after a failure.
    public var initialDelay: Duration
    /// The longest wait between two attempts.
    public var maximumDelay: Duration

    /// Makes a policy; the defaults give up after about 15 seconds without the service.
    public init(
        maximumAttempts: Int = 10, initialDelay: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(2)
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait before attempt `failures + 1`, after `failures` failed attempts in a row (at least 1).
    public func delay(afterFailures failures: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, failures) {
            delay *= 2
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
    }
}
