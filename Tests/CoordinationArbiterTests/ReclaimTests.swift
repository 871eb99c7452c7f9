import CoordinationArbiter
import Testing

/// A new host restores the accesses clients held under the host that died (``Arbiter/accessReclaimed``).
@Suite struct ReclaimTests {
    let now = Instant(nanoseconds: 1)
    let path: ItemPath = "/r/a"

    @Test func aReclaimedWriteHoldsItsPathAtOnceWithoutMessagesAndBlocksOthersUntilItEnds() {
        var arbiter = Arbiter()
        _ = arbiter.presenterRegistered(PresenterID(1), client: ClientID(3), purpose: PurposeID("P"), path: path)
        let reclaimed = arbiter.accessReclaimed(
            RequestID(1), client: ClientID(1), purpose: PurposeID("A"), intents: [.writing(path)], now: now)
        #expect(reclaimed.isEmpty, "a reclaim sends nothing: the accessor already runs")
        #expect(arbiter.snapshot().claims.first?.holders.map(\.request) == [RequestID(1)])
        let waiting = arbiter.accessRequested(
            RequestID(2), client: ClientID(2), purpose: PurposeID("B"), intents: [.reading(path)], now: now)
        #expect(waiting.isEmpty, "a reader must wait for the reclaimed writer")
        let ended = arbiter.accessEnded(RequestID(1), from: ClientID(1))
        let messages = ended.compactMap { action -> String? in
            if case .send(let delivery) = action { return "\(delivery.message)" }
            return nil
        }
        #expect(messages.first == "didChange", "the presenter hears of the write when it ends")
    }

    @Test func aReclaimWithAnActiveIdIsAProtocolViolation() {
        var arbiter = Arbiter()
        _ = arbiter.accessRequested(
            RequestID(1), client: ClientID(1), purpose: PurposeID("A"), intents: [.writing(path)], now: now)
        let again = arbiter.accessReclaimed(
            RequestID(1), client: ClientID(1), purpose: PurposeID("A"), intents: [.writing(path)], now: now)
        #expect(again == [.failClient(ClientID(1), .duplicateRequest(RequestID(1)))])
    }
}
