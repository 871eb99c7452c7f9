import Testing

@testable import DocumentStore

/// The connection deadline machine, fed events with a fixed clock.
@Suite("Connection deadlines")
struct ConnectionDeadlinesTests {
    let start = ContinuousClock.now

    func machine() -> ConnectionDeadlines {
        ConnectionDeadlines(now: start, headerTimeout: .seconds(10), idleTimeout: .seconds(60))
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
}
