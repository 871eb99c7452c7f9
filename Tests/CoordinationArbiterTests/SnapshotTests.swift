import CoordinationArbiter
import Testing

/// The operator's view (`quire presenters`, `quire claims`).
@Suite struct SnapshotTests {
    @Test func claimsShowHoldersWaitersRequestTimesAndWhoBlocksWhom() {
        var h = Harness()
        h.now = Instant(nanoseconds: 10)
        h.request(1, client: 1, purpose: "A", [read("/r/a")])
        h.now = Instant(nanoseconds: 20)
        h.request(2, client: 2, purpose: "B", [write("/r/a")])
        h.now = Instant(nanoseconds: 30)
        h.request(3, client: 3, purpose: "C", [read("/r/a"), read("/r/pkg.bundle/f")])
        let claims = h.arbiter.snapshot().claims
        #expect(claims.map(\.path) == ["/r/a", "/r/pkg.bundle"])
        let a = claims[0]
        #expect(a.holders.map(\.request) == [RequestID(1)])
        #expect(a.holders.map(\.phase) == [.granted])
        #expect(a.holders.map(\.requestedAt) == [Instant(nanoseconds: 10)])
        #expect(a.waiters.map(\.request) == [RequestID(2), RequestID(3)])
        #expect(a.waiters.map(\.blockedBy) == [[RequestID(1)], [RequestID(2)]])
        #expect(a.waiters.map(\.requestedAt) == [Instant(nanoseconds: 20), Instant(nanoseconds: 30)])
        #expect(claims[1].waiters.map(\.intent.path) == ["/r/pkg.bundle/f"])
    }

    @Test func roundInProgressShowsTheMessagesAwaited() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        h.request(1, client: 1, purpose: "A", [read("/r/a")])
        let waiter = h.arbiter.snapshot().claims[0].waiters[0]
        #expect(waiter.phase == .askingPresenters([MessageID(1)]))
        #expect(waiter.blockedBy.isEmpty)
    }

    @Test func presentersAreListedByPathWithPathlessOnesLast() {
        var h = Harness()
        h.register(3, client: 1, purpose: "P3", path: nil)
        h.register(2, client: 2, purpose: "P2", path: "/r/b", observes: true)
        h.register(1, client: 1, purpose: "P1", path: "/r/a")
        let presenters = h.arbiter.snapshot().presenters
        #expect(presenters.map(\.presenter) == [PresenterID(1), PresenterID(2), PresenterID(3)])
        #expect(presenters.map(\.client) == [ClientID(1), ClientID(2), ClientID(1)])
        #expect(presenters.map(\.purpose) == [PurposeID("P1"), PurposeID("P2"), PurposeID("P3")])
        #expect(presenters.map(\.observesUncoordinatedChanges) == [false, true, false])
    }

    @Test func nothingIsLeftOnceEverythingEnded() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a/x")
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forDeleting)])
        h.request(2, client: 3, purpose: "C", [read("/r/a/x/y")])
        h.replyAll()
        h.replyAll()
        h.end(1, client: 1)
        h.end(2, client: 3)
        h.unregister(1, client: 2)
        let snapshot = h.arbiter.snapshot()
        #expect(snapshot.presenters.isEmpty)
        #expect(snapshot.claims.isEmpty)
    }
}
