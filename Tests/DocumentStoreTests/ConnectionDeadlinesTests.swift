import Testing

@testable import DocumentStore

/// The connection deadline machine, fed events with a fixed clock.
@Suite("Connection deadlines")
struct ConnectionDeadlinesTests {
    let start = ContinuousClock.now

    func machine() -> ConnectionDeadlines {
        ConnectionDeadlines(now: start, headerTimeout: .seconds(10), idleTimeout: .seconds(60))
    }

    /// A machine whose bodies must average `minimumRate` bytes a second after 10 s and end within `deadline`.
    func paced(minimumRate: Int, deadline: Duration) -> ConnectionDeadlines {
        ConnectionDeadlines(
            now: start, headerTimeout: .seconds(10), idleTimeout: .seconds(60),
            bodyPace: .init(minimumRate: minimumRate, grace: .seconds(10), deadline: deadline))
    }

    @Test("a new connection must send a complete head within the header timeout, whatever bytes it sends")
    func headerTimeout() {
        var deadlines = machine()
        #expect(deadlines.deadline == start + .seconds(10))
        deadlines.bytesArrived(now: start + .seconds(9))
        #expect(deadlines.deadlineReached(now: start + .seconds(10)) == .close(.headerTimeout))
    }

    @Test("while the service works there is no deadline; writing the response restarts the idle timeout")
    func serverWorkAndResponse() {
        var deadlines = machine()
        deadlines.requestHeadArrived(now: start + .seconds(1))
        deadlines.requestEnded(now: start + .seconds(1))
        #expect(deadlines.wait == .serverWork)
        #expect(deadlines.deadline == nil)
        #expect(deadlines.deadlineReached(now: start + .seconds(500)) == .wait(nil))
        let closes = deadlines.responseHeadWritten(now: start + .seconds(600))
        #expect(!closes)
        deadlines.responseBodyWritten(now: start + .seconds(650))
        #expect(deadlines.deadlineReached(now: start + .seconds(700)) == .wait(start + .seconds(710)))
        let reason = deadlines.responseEnded(now: start + .seconds(700))
        #expect(reason == nil)
        #expect(deadlines.wait == .nextRequest)
        #expect(deadlines.deadlineReached(now: start + .seconds(760)) == .close(.idleTimeout))
    }

    @Test("after a response, the first byte of the next request starts the header timeout")
    func nextRequest() {
        var deadlines = machine()
        deadlines.requestHeadArrived(now: start)
        deadlines.requestEnded(now: start)
        _ = deadlines.responseHeadWritten(now: start)
        _ = deadlines.responseEnded(now: start)
        deadlines.bytesArrived(now: start + .seconds(30))
        #expect(deadlines.wait == .requestHead)
        #expect(deadlines.deadline == start + .seconds(40))
    }

    @Test("an answer written before the request's body was read closes the connection once it ends")
    func answeredEarly() {
        var deadlines = machine()
        deadlines.requestHeadArrived(now: start)
        #expect(deadlines.wait == .requestBody)
        let closes = deadlines.responseHeadWritten(now: start)
        #expect(closes)
        let reason = deadlines.responseEnded(now: start)
        #expect(reason == .answeredEarly)
    }

    @Test("a request body that stops arriving is closed after the idle timeout from its last bytes")
    func stalledBody() {
        var deadlines = machine()
        deadlines.requestHeadArrived(now: start)
        deadlines.bytesArrived(now: start + .seconds(50))
        #expect(deadlines.deadlineReached(now: start + .seconds(60)) == .wait(start + .seconds(110)))
        #expect(deadlines.deadlineReached(now: start + .seconds(110)) == .close(.idleTimeout))
    }

    @Test("a body trickled a byte at a time is cut once it falls below the minimum rate, though it is never idle")
    func trickledBody() {
        var deadlines = paced(minimumRate: 1000, deadline: .seconds(600))
        deadlines.requestHeadArrived(now: start)
        // Within the grace period anything goes; then 1000 bytes a second on average since the head.
        #expect(deadlines.deadline == start + .seconds(10))
        deadlines.bodyArrived(5_000, now: start + .seconds(1))
        #expect(deadlines.deadline == start + .seconds(15))
        for second in 2...14 {
            deadlines.bodyArrived(1, now: start + .seconds(second))
            #expect(deadlines.deadlineReached(now: start + .seconds(second)) != .close(.bodyTooSlow))
        }
        // 5,013 bytes buy 15.013 s: a byte every second does not keep it open.
        #expect(deadlines.deadlineReached(now: start + .milliseconds(15_013)) == .close(.bodyTooSlow))
    }

    @Test("a body at the minimum rate goes on until the body deadline; a finished body leaves the pace behind")
    func bodyDeadline() {
        var deadlines = paced(minimumRate: 1000, deadline: .seconds(60))
        deadlines.requestHeadArrived(now: start)
        for second in 1...59 {
            deadlines.bodyArrived(100_000, now: start + .seconds(second))
            #expect(deadlines.deadlineReached(now: start + .seconds(second)) == .wait(start + .seconds(60)))
        }
        #expect(deadlines.deadlineReached(now: start + .seconds(60)) == .close(.bodyTooSlow))
        // Another connection: its body ends in time, and the service may take as long as it needs.
        var finished = paced(minimumRate: 1000, deadline: .seconds(60))
        finished.requestHeadArrived(now: start)
        finished.bodyArrived(10, now: start + .seconds(1))
        finished.requestEnded(now: start + .seconds(1))
        #expect(finished.deadline == nil)
        #expect(finished.deadlineReached(now: start + .seconds(100)) == .wait(nil))
    }

    @Test("without a minimum rate, a slow body is only bound by the idle timeout")
    func noMinimumRate() {
        var deadlines = paced(minimumRate: 0, deadline: .seconds(600))
        deadlines.requestHeadArrived(now: start)
        deadlines.bodyArrived(1, now: start + .seconds(50))
        #expect(deadlines.deadline == start + .seconds(110))
        #expect(deadlines.deadlineReached(now: start + .seconds(110)) == .close(.idleTimeout))
    }
}
