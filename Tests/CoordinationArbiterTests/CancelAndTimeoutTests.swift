import CoordinationArbiter
import Testing

/// Cancellation and deadlines: a waiting request fails, a granted one runs to its end.
@Suite struct CancelAndTimeoutTests {
    @Test func cancelWhileQueuedFailsAndNeverGrants() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")])
        #expect(h.cancel(2, client: 2) == ["fail R2 cancelled"])
        #expect(h.end(1, client: 1) == [])
        #expect(h.arbiter.snapshot().claims.isEmpty)
    }

    @Test func cancelDuringRoundReacquiresAndIgnoresLateReplies() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        h.request(1, client: 1, purpose: "A", [read("/r/a")])
        let owed = h.model.unreplied
        #expect(h.cancel(1, client: 1) == ["fail R1 cancelled", "P1 reacquire"])
        #expect(h.reply(owed[0].id, client: owed[0].client) == [])
    }

    @Test func cancelAfterGrantDoesNothing() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        #expect(h.cancel(1, client: 1) == [])
        #expect(h.end(1, client: 1) == [])
    }

    @Test func cancelOfUnknownRequestIsIgnored() {
        var h = Harness()
        #expect(h.cancel(7, client: 1) == [])
    }

    @Test func cancelledWriterNoLongerBarsLaterReaders() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [read("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")])
        h.request(3, client: 3, purpose: "C", [read("/r/a")])
        #expect(h.cancel(2, client: 2) == ["fail R2 cancelled", "grant R3 /r/a"])
    }

    @Test func timeoutWhileQueuedNamesTheBlockedPath() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/b")])
        #expect(
            h.request(2, client: 2, purpose: "B", [read("/r/a"), write("/r/b")], deadline: 100) == [
                "startTimer R2 @100"
            ])
        #expect(h.fireTimer(2, at: 100) == ["fail R2 timedOut(/r/b)"])
        #expect(h.end(1, client: 1) == [])
    }

    @Test func silentPresenterBlocksOnlyUntilTheDeadline() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        #expect(
            h.request(1, client: 1, purpose: "A", [read("/r/a")], deadline: 100) == [
                "P1 relinquishToReader", "startTimer R1 @100",
            ])
        #expect(h.fireTimer(1, at: 150) == ["fail R1 timedOut(/r/a)", "P1 reacquire"])
        #expect(h.replyAll() == [])
    }

    @Test func grantDisarmsTheTimer() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")], deadline: 100)
        #expect(h.end(1, client: 1) == ["cancelTimer R2", "grant R2 /r/a"])
        #expect(h.fireTimer(2, at: 100) == [])
    }

    @Test func cancelDisarmsTheTimer() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")], deadline: 100)
        #expect(h.cancel(2, client: 2) == ["cancelTimer R2", "fail R2 cancelled"])
    }

    @Test func earlyTimerIsArmedAgain() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")], deadline: 100)
        #expect(h.fireTimer(2, at: 60) == ["startTimer R2 @100"])
        #expect(h.fireTimer(2, at: 100) == ["fail R2 timedOut(/r/a)"])
    }

    @Test func deadlineAlreadyPassedFailsAtOnceUnlessFree() {
        var h = Harness()
        h.now = Instant(nanoseconds: 50)
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a")], deadline: 10) == ["grant R1 /r/a"])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a")], deadline: 50) == ["fail R2 timedOut(/r/a)"])
    }

    @Test func timedOutRequestUnblocksTheNextOne() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [read("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")], deadline: 100)
        h.request(3, client: 3, purpose: "C", [read("/r/a")])
        #expect(h.fireTimer(2, at: 100) == ["fail R2 timedOut(/r/a)", "grant R3 /r/a"])
    }
}
