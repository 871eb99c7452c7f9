import CoordinationArbiter
import Testing

/// The presenter messages of each option and their order (API notes §1.2, §2.3): relinquish, wait, save or
/// accommodate, wait, grant, then after the access `didChange` / `subitemDidChange`, then reacquire.
@Suite struct PresenterMessageTests {
    /// A harness with presenter P1 (client 2) at `path`.
    func harness(presenterAt path: ItemPath = "/r/a") -> Harness {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: path)
        return h
    }

    @Test func readRelinquishesThenSavesThenReacquires() {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [read("/r/a")]) == ["P1 relinquishToReader"])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges"])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P1 reacquire"])
    }

    @Test func readWithoutChangesOnlyRelinquishes() {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [read("/r/a", .withoutChanges)]) == ["P1 relinquishToReader"])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P1 reacquire"])
    }

    @Test(arguments: [
        AccessIntent.ReadingOptions.resolvesSymbolicLink, .immediatelyAvailableMetadataOnly, .forUploading,
    ])
    func otherReadingOptionsMessageLikeAPlainRead(options: AccessIntent.ReadingOptions) {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [read("/r/a", options)]) == ["P1 relinquishToReader"])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges"])
        #expect(h.replyAll() == ["grant R1 /r/a"])
    }

    @Test func plainWriteRelinquishesThenReportsChangeBeforeReacquire() {
        var h = harness()
        h.register(2, client: 3, purpose: "P2", path: "/r")
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a")]) == ["P1 relinquishToWriter"])
        #expect(h.replyAll() == ["grant R1 /r/a +presence"])
        #expect(h.end(1, client: 1) == ["P1 didChange", "P2 subitemDidChange(/r/a)", "P1 reacquire"])
    }

    @Test func mergingWriteAsksToSaveFirst() {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a", .forMerging)]) == ["P1 relinquishToWriter"])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges"])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P1 didChange", "P1 reacquire"])
    }

    @Test(arguments: [AccessIntent.WritingOptions.forDeleting, .forReplacing])
    func deletingOrReplacingWriteAsksToAccommodateDeletion(options: AccessIntent.WritingOptions) {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a", options)]) == ["P1 relinquishToWriter"])
        #expect(h.replyAll() == ["P1 accommodateDeletion"])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P1 reacquire"])
    }

    /// The parent directory's presenter does not relinquish (its directory is not written) but accommodates the
    /// deletion of its subitem and hears of it afterwards.
    @Test func deletingDirectoryAsksEverythingInsideAndTheParentOnlyAboutItsSubitem() {
        var h = harness()
        h.register(2, client: 3, purpose: "P2", path: "/r/a/x")
        h.register(3, client: 3, purpose: "P3", path: "/r")
        h.register(4, client: 3, purpose: "P4", path: "/r/b")
        #expect(
            h.request(1, client: 1, purpose: "A", [write("/r/a", .forDeleting)]) == [
                "P1 relinquishToWriter", "P2 relinquishToWriter",
            ])
        #expect(
            h.replyAll() == ["P1 accommodateDeletion", "P2 accommodateDeletion", "P3 accommodateSubitemDeletion(/r/a)"])
        #expect(h.replyAll() == ["grant R1 /r/a +presence"])
        #expect(h.end(1, client: 1) == ["P3 subitemDidChange(/r/a)", "P1 reacquire", "P2 reacquire"])
    }

    @Test func movingDirectoryRelinquishesEverythingInside() {
        var h = harness()
        h.register(2, client: 3, purpose: "P2", path: "/r/a/x")
        #expect(
            h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)]) == [
                "P1 relinquishToWriter", "P2 relinquishToWriter",
            ])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P1 reacquire", "P2 reacquire"])
    }

    @Test func deletingInsidePackageAsksThePackageToAccommodateASubitemDeletion() {
        var h = harness(presenterAt: "/r/pkg.bundle")
        h.register(2, client: 3, purpose: "P2", path: "/r/pkg.bundle/f")
        #expect(
            h.request(1, client: 1, purpose: "A", [write("/r/pkg.bundle/f", .forDeleting)]) == [
                "P2 relinquishToWriter", "P1 relinquishToWriter",
            ])
        #expect(h.replyAll() == ["P2 accommodateDeletion", "P1 accommodateSubitemDeletion(/r/pkg.bundle/f)"])
        #expect(h.replyAll() == ["grant R1 /r/pkg.bundle/f +presence"])
        #expect(h.end(1, client: 1) == ["P1 subitemDidChange(/r/pkg.bundle/f)", "P2 reacquire", "P1 reacquire"])
    }

    @Test func readInsidePackageAsksThePackagePresenter() {
        var h = harness(presenterAt: "/r/pkg.bundle")
        #expect(h.request(1, client: 1, purpose: "A", [read("/r/pkg.bundle/f")]) == ["P1 relinquishToReader"])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges"])
        #expect(h.replyAll() == ["grant R1 /r/pkg.bundle/f"])
    }

    @Test func writeInsidePackageReportsASubitemChangeToThePackage() {
        var h = harness(presenterAt: "/r/pkg.bundle")
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/pkg.bundle/f")]) == ["P1 relinquishToWriter"])
        #expect(h.replyAll() == ["grant R1 /r/pkg.bundle/f +presence"])
        #expect(h.end(1, client: 1) == ["P1 subitemDidChange(/r/pkg.bundle/f)", "P1 reacquire"])
    }

    @Test func writeReportsSubitemChangeToEveryEnclosingDirectoryNearestFirst() {
        var h = harness(presenterAt: "/r")
        h.register(2, client: 3, purpose: "P2", path: "/r/a")
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a/x/y")]) == ["grant R1 /r/a/x/y +presence"])
        #expect(h.end(1, client: 1) == ["P2 subitemDidChange(/r/a/x/y)", "P1 subitemDidChange(/r/a/x/y)"])
    }

    @Test func readOfDirectoryDoesNotMessageItsContents() {
        var h = harness(presenterAt: "/r/a/x")
        #expect(h.request(1, client: 1, purpose: "A", [read("/r/a")]) == ["grant R1 /r/a"])
        #expect(h.request(2, client: 3, purpose: "B", [write("/r/a")]) == [])
    }

    @Test func readIncludingContentsAsksThePresentersInsideToo() {
        var h = harness()
        h.register(2, client: 3, purpose: "P2", path: "/r/a/x/y")
        h.register(3, client: 3, purpose: "P3", path: "/r")  // the parent is not asked
        h.register(4, client: 3, purpose: "P4", path: "/r/b")
        #expect(
            h.request(1, client: 1, purpose: "A", [read("/r/a", contents: true)]) == [
                "P1 relinquishToReader", "P2 relinquishToReader",
            ])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges", "P2 savePresentedItemChanges"])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P1 reacquire", "P2 reacquire"])
    }

    @Test func readWithoutChangesIncludingContentsOnlyRelinquishes() {
        var h = harness(presenterAt: "/r/a/x")
        #expect(
            h.request(1, client: 1, purpose: "A", [read("/r/a", .withoutChanges, contents: true)]) == [
                "P1 relinquishToReader"
            ])
        #expect(h.replyAll() == ["grant R1 /r/a"])
    }

    @Test func writesIncludingContentsAskThePresentersInsideWhatTheOptionsAsk() {
        var h = harness()
        h.register(2, client: 3, purpose: "P2", path: "/r/a/x")
        // Plain: relinquish only; afterwards only the item's own presenters hear of the change.
        #expect(
            h.request(1, client: 1, purpose: "A", [write("/r/a", contents: true)]) == [
                "P1 relinquishToWriter", "P2 relinquishToWriter",
            ])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P1 didChange", "P1 reacquire", "P2 reacquire"])
        // Merging: everyone saves first.
        #expect(
            h.request(2, client: 1, purpose: "A", [write("/r/a", .forMerging, contents: true)]) == [
                "P1 relinquishToWriter", "P2 relinquishToWriter",
            ])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges", "P2 savePresentedItemChanges"])
        #expect(h.replyAll() == ["grant R2 /r/a"])
        h.end(2, client: 1)
        // Merging without the flag leaves the contents alone, as before.
        #expect(h.request(3, client: 1, purpose: "A", [write("/r/a", .forMerging)]) == ["P1 relinquishToWriter"])
    }

    @Test func presenterInsideAndListedItselfIsAskedOnce() {
        var h = harness(presenterAt: "/r/a/x")
        #expect(
            h.request(1, client: 1, purpose: "A", [read("/r/a", contents: true), read("/r/a/x"), write("/r/a/x")])
                == ["P1 relinquishToWriter"])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges"])
        #expect(h.replyAll() == ["grant R1 /r/a /r/a/x /r/a/x"])
        #expect(h.end(1, client: 1) == ["P1 didChange", "P1 reacquire"])
    }

    @Test func coordinatorMadeWithAPresenterNeverMessagesIt() {
        var h = harness()
        h.register(2, client: 1, purpose: "P2", path: "/r/a")
        // Request of purpose P2 = a coordinator made with presenter P2.
        #expect(h.request(1, client: 1, purpose: "P2", [write("/r/a", .forMerging)]) == ["P1 relinquishToWriter"])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges"])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P1 didChange", "P1 reacquire"])
    }

    @Test func presentersOfTheSamePurposeInAnotherProcessAreNotMessaged() {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "P1", [write("/r/a", .forDeleting)]) == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == [])
    }

    @Test func presenterErrorFailsTheRequestAndEveryRelinquishedPresenterReacquires() {
        var h = harness()
        h.register(2, client: 3, purpose: "P2", path: "/r/a")
        h.request(1, client: 1, purpose: "A", [read("/r/a")])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges", "P2 savePresentedItemChanges"])
        let lines = h.replyAll(presenter: 1, failure: PresenterFailure(encoded: [1, 2, 3]))
        #expect(lines == ["fail R1 presenterFailed", "P1 reacquire", "P2 reacquire"])
        #expect(
            h.model.requests[RequestID(1)]?.status == .failed(.presenterFailed(PresenterFailure(encoded: [1, 2, 3]))))
        // P2's late reply is ignored, and nothing is left waiting.
        #expect(h.replyAll(presenter: 2) == [])
        #expect(h.arbiter.snapshot().claims.isEmpty)
    }

    @Test func accommodateDeletionErrorBlocksTheDeletion() {
        var h = harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forDeleting)])
        #expect(h.replyAll() == ["P1 accommodateDeletion"])
        #expect(h.replyAll(failure: PresenterFailure(encoded: [9])) == ["fail R1 presenterFailed", "P1 reacquire"])
    }

    @Test func failedRequestUnblocksTheNextOne() {
        var h = harness()
        h.request(1, client: 1, purpose: "A", [read("/r/a")])
        #expect(h.request(2, client: 3, purpose: "B", [write("/r/a")]) == [])
        h.replyAll()
        #expect(
            h.replyAll(failure: PresenterFailure(encoded: [])) == [
                "fail R1 presenterFailed", "P1 reacquire", "P1 relinquishToWriter",
            ])
    }

    @Test func presenterWithoutPathGetsNothingUntilItHasOne() {
        var h = harness(presenterAt: "/r/b")
        h.register(2, client: 3, purpose: "P2", path: nil)
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a")]) == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == [])
        h.movePresenter(2, client: 3, to: "/r/a")
        #expect(h.request(2, client: 1, purpose: "A", [write("/r/a")]) == ["P2 relinquishToWriter"])
        h.movePresenter(1, client: 2, to: nil)
        #expect(h.request(3, client: 1, purpose: "A", [write("/r/b")]) == ["grant R3 /r/b"])
    }

    @Test func presenterRemovedMidRoundCountsAsHavingReplied() {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [read("/r/a")]) == ["P1 relinquishToReader"])
        #expect(h.unregister(1, client: 2) == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == [])
    }

    @Test func presenterRegisteredDuringARoundIsNotAskedByIt() {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [read("/r/a")]) == ["P1 relinquishToReader"])
        h.register(2, client: 3, purpose: "P2", path: "/r/a")
        #expect(h.replyAll() == ["P1 savePresentedItemChanges"])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P1 reacquire"])
    }

    @Test func oneRelinquishPerPresenterForAReadAndWriteOfTheSameItem() {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [read("/r/a"), write("/r/a")]) == ["P1 relinquishToWriter"])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges"])
        #expect(h.replyAll() == ["grant R1 /r/a /r/a"])
        #expect(h.end(1, client: 1) == ["P1 didChange", "P1 reacquire"])
    }

    @Test func reacquireNamesTheRelinquishItEnds() {
        var arbiter = Arbiter()
        let presenter = PresenterID(1)
        _ = arbiter.presenterRegistered(presenter, client: ClientID(2), purpose: PurposeID("P1"), path: "/r/a")
        let asked = arbiter.accessRequested(
            RequestID(1), client: ClientID(1), purpose: PurposeID("A"), intents: [read("/r/a", .withoutChanges)],
            now: Instant(nanoseconds: 0))
        let relinquish = PresenterDelivery(
            client: ClientID(2), presenter: presenter, id: MessageID(1), message: .relinquishToReader,
            request: RequestID(1))
        #expect(asked == [.send(relinquish)])
        #expect(
            arbiter.presenterReplied(MessageID(1), from: ClientID(2)) == [
                .grant(RequestID(1), ClientID(1), paths: ["/r/a"])
            ])
        let reacquire = PresenterDelivery(
            client: ClientID(2), presenter: presenter, id: MessageID(2),
            message: .reacquire(relinquishMessage: MessageID(1)),
            request: RequestID(1))
        #expect(arbiter.accessEnded(RequestID(1), from: ClientID(1)) == [.send(reacquire)])
    }

    @Test func everyRequestReachingTheHeadRunsItsOwnRound() {
        var h = harness()
        h.request(1, client: 1, purpose: "A", [read("/r/a", .withoutChanges)])
        h.request(2, client: 3, purpose: "B", [write("/r/a")])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P1 reacquire", "P1 relinquishToWriter"])
        #expect(h.replyAll() == ["grant R2 /r/a"])
        #expect(h.end(2, client: 3) == ["P1 didChange", "P1 reacquire"])
    }
}
