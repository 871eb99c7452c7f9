/// How long a thread that waits for its next event polls before it sleeps, learned from what its polls caught and
/// what they cost: latency bought with processor time only where it buys latency.
///
/// - A poll that got less than half of a processor while it ran (others wanted it: the thread it waits for, say,
///   on a machine busy with other work) delayed what it waited for: the window falls to a quarter.
/// - A poll that ends without the event, which then comes only after more than ``maximum`` (a worker whose next
///   request is far off), burned its processor for nothing: the window halves.
/// - An event that comes after the poll ended but within ``maximum`` of its start would have been caught by a
///   longer poll: the window doubles (from an eighth of the maximum when it was none), up to ``maximum``.
/// - A poll that catches its event on a processor of its own keeps the window.
///
/// A window at or below a sixty-fourth of the maximum is none. A pure value: the caller measures, this decides.
public struct AdaptivePollWindow: Sendable, Equatable {
    /// The longest window: the configured polling time.
    public let maximum: Duration
    /// How long to poll now (zero: sleep at once).
    public private(set) var current: Duration

    /// A window that starts at `maximum` (zero or less: never poll).
    public init(maximum: Duration) {
        self.maximum = max(.zero, maximum)
        current = self.maximum
    }

    /// Records one wait: whether the poll caught its event, when the event came (from the start of the poll, or of
    /// the wait when there was no poll), and the processor time the poll's thread got while it polled (zero when
    /// it did not poll).
    public mutating func record(caught: Bool, after waited: Duration, processorTime: Duration = .zero) {
        guard maximum > .zero else { return }
        let polled = current > .zero ? (caught ? min(waited, current) : current) : .zero
        if polled > .zero, processorTime * 2 < polled {
            current = current / 4
        } else if caught {
            return
        } else if waited <= maximum {
            current = min(maximum, max(current * 2, maximum / 8))
            return
        } else {
            current = current / 2
        }
        if current <= maximum / 64 { current = .zero }
    }
}
