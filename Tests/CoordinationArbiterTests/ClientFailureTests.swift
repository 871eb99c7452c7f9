import CoordinationArbiter
import Testing

/// Clients that disappear, and clients that send events that cannot happen: never a trap, always an action
/// (or, for late events, nothing).
@Suite struct ClientFailureTests {
    @Test func disconnectReleasesWhatTheClientHeldAndDropsWhatItWaitedFor() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")])
        #expect(
            h.request(3, client: 1, purpose: "A", [write("/r/b"), write("/r/a")], deadline: 100) == [
                "startTimer R3 @100"
            ])
        #expect(h.disconnect(1) == ["cancelTimer R3", "grant R2 /r/a"])
        #expect(h.arbiter.snapshot().claims.map(\.path) == ["/r/a"])
    }

    @Test func disconnectMidRoundCountsTheClientsPresentersAsHavingReplied() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        h.register(2, client: 3, purpose: "P2", path: "/r/a")
        #expect(
            h.request(1, client: 1, purpose: "A", [read("/r/a")]) == ["P1 relinquishToReader", "P2 relinquishToReader"])
        #expect(h.replyAll(presenter: 2) == [])
        #expect(h.disconnect(2) == ["P2 savePresentedItemChanges"])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P2 reacquire"])
    }

    @Test func disconnectOfAGrantedWriterStillReportsTheChangeToOthers() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        h.register(2, client: 1, purpose: "A", path: "/r/a")
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.replyAll()
        #expect(h.disconnect(1) == ["P1 didChange", "P1 reacquire"])
        #expect(h.arbiter.snapshot().presenters.map(\.presenter) == [PresenterID(1)])
    }

    @Test func disconnectOfAWaitingRequesterReacquiresAndUnblocksOthers() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 3, purpose: "C", [read("/r/a", .withoutChanges)])
        #expect(h.disconnect(1) == ["P1 reacquire", "P1 relinquishToReader"])
    }

    @Test func disconnectOfUnknownClientDoesNothing() {
        var h = Harness()
        #expect(h.disconnect(9) == [])
    }

    @Test func duplicateRequestIDIsAViolationAndChangesNothing() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        #expect(h.request(1, client: 2, purpose: "B", [write("/r/b")]) == ["failClient C2 duplicateRequest(request#1)"])
        #expect(h.arbiter.snapshot().claims.map(\.path) == ["/r/a"])
    }

    @Test func replyToAMessageNeverSentIsAViolation() {
        var h = Harness()
        #expect(h.reply(MessageID(0), client: ClientID(1)) == ["failClient C1 unknownMessage(message#0)"])
        #expect(h.reply(MessageID(42), client: ClientID(1)) == ["failClient C1 unknownMessage(message#42)"])
    }

    @Test func replyFromTheWrongClientIsAViolationAndTheRightReplyStillCounts() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        h.request(1, client: 1, purpose: "A", [read("/r/a", .withoutChanges)])
        let owed = h.model.unreplied[0]
        let wrong = h.arbiter.presenterReplied(owed.id, from: ClientID(3))
        #expect(wrong == [.failClient(ClientID(3), .replyFromWrongClient(owed.id))])
        #expect(h.reply(owed.id, client: owed.client) == ["grant R1 /r/a"])
        #expect(h.reply(owed.id, client: owed.client) == [])  // duplicate: ignored
    }

    @Test func replyToANotificationIsIgnored() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.replyAll()
        let actions = h.arbiter.accessEnded(RequestID(1), from: ClientID(1))
        guard case .send(let didChange) = actions.first else { return #expect(Bool(false), "expected didChange") }
        #expect(h.arbiter.presenterReplied(didChange.id, from: ClientID(2)) == [])
    }

    @Test func accessEndedByAnotherClientOrBeforeGrantIsAViolation() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")])
        #expect(
            h.arbiter.accessEnded(RequestID(1), from: ClientID(2)) == [
                .failClient(ClientID(2), .requestOfAnotherClient(RequestID(1)))
            ])
        #expect(
            h.arbiter.accessEnded(RequestID(2), from: ClientID(2)) == [
                .failClient(ClientID(2), .accessEndedBeforeGrant(RequestID(2)))
            ])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a"])
        #expect(h.end(1, client: 1) == [])  // twice: ignored
    }

    @Test func cancelOfAnotherClientsRequestIsAViolation() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")])
        #expect(h.cancel(2, client: 1) == ["failClient C1 requestOfAnotherClient(request#2)"])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a"])
    }

    @Test func presenterOfAnotherClientCannotBeRegisteredMovedOrRemoved() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        let register = h.arbiter.presenterRegistered(
            PresenterID(1), client: ClientID(3), purpose: PurposeID("X"), path: "/r/b")
        #expect(register == [.failClient(ClientID(3), .presenterOfAnotherClient(PresenterID(1)))])
        #expect(
            h.arbiter.presenterMoved(PresenterID(1), from: ClientID(3), to: "/r/b") == [
                .failClient(ClientID(3), .presenterOfAnotherClient(PresenterID(1)))
            ])
        #expect(
            h.arbiter.presenterRemoved(PresenterID(1), from: ClientID(3)) == [
                .failClient(ClientID(3), .presenterOfAnotherClient(PresenterID(1)))
            ])
        #expect(h.arbiter.snapshot().presenters.map(\.path) == ["/r/a"])
    }

    @Test func registeringTwiceUpdatesAndRemovingTwiceIsHarmless() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        h.register(1, client: 2, purpose: "P1", path: "/r/b", observes: true)
        let presenters = h.arbiter.snapshot().presenters
        #expect(presenters.map(\.path) == ["/r/b"])
        #expect(presenters.map(\.observesUncoordinatedChanges) == [true])
        #expect(h.unregister(1, client: 2) == [])
        #expect(h.unregister(1, client: 2) == [])
        #expect(h.arbiter.snapshot().presenters.isEmpty)
    }

    @Test func unknownPresenterMoveIsIgnored() {
        var h = Harness()
        #expect(h.movePresenter(5, client: 1, to: "/r") == [])
    }

    @Test func nestingInAnotherClientsOrPurposesRequestIsAViolation() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        #expect(
            h.request(2, client: 2, purpose: "A", [read("/r/a")], nestedIn: 1) == [
                "failClient C2 requestOfAnotherClient(request#1)"
            ])
        #expect(
            h.request(3, client: 1, purpose: "B", [read("/r/a")], nestedIn: 1) == [
                "failClient C1 nestedInForeignRequest(request#1)"
            ])
    }

    @Test func lateTimerForUnknownRequestIsIgnored() {
        var h = Harness()
        #expect(h.fireTimer(3, at: 10) == [])
    }
}
