/// How long the threads of the shared arbiter poll without sleeping before they sleep: latency bought with CPU.
///
/// On a virtual machine a sleeping thread costs 40–50 µs to wake, more than a whole coordination round trip, so a
/// thread that expects an answer soon polls for it first. Polling happens only while something is in flight
/// (after a request, or after a frame the host handled): an idle process burns no CPU whatever these values are.
/// `.none` makes every wait sleep at once (the least CPU, the most latency). The defaults were measured on the
/// project's 2-vCPU machine; `Docs/performance.md` gives what each costs in CPU per access.
public struct CoordinationPolling: Sendable, Equatable {
    /// How long a thread waiting for its grant polls its connection (default 200 µs).
    public var waitingClient: Duration
    /// How long a waiting thread polls the hand-over board, where the client before it in a queue writes its grant
    /// (default 500 µs: a grant taken there by a polling waiter costs microseconds, a sleeping one a wake-up).
    public var handOver: Duration
    /// How long the host polls its clients after handling a frame (default 100 µs: the end of the access it just
    /// granted, or the client's next request, usually comes within it).
    public var host: Duration

    /// Polling windows; each is clamped to 0…100 ms.
    public init(
        waitingClient: Duration = .microseconds(200), handOver: Duration = .microseconds(500),
        host: Duration = .microseconds(100)
    ) {
        self.waitingClient = Self.clamped(waitingClient)
        self.handOver = Self.clamped(handOver)
        self.host = Self.clamped(host)
    }

    /// The measured defaults.
    public static let `default` = CoordinationPolling()

    /// No polling: every wait sleeps at once.
    public static let none = CoordinationPolling(waitingClient: .zero, handOver: .zero, host: .zero)

    private static func clamped(_ value: Duration) -> Duration { max(.zero, min(value, .milliseconds(100))) }
}
