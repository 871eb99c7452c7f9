import CoordinationArbiter
import Testing

/// Who waits for whom (API notes §1.3), one rule per test, without presenters.
@Suite struct WaitingRuleTests {
    @Test func readersShare() {
        var h = Harness()
        #expect(h.request(1, client: 1, purpose: "A", [read("/r/a")]) == ["grant R1 /r/a"])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/a")]) == ["grant R2 /r/a"])
    }

    @Test func writeWaitsForRunningRead() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [read("/r/a")])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a")]) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a"])
    }

    @Test func readWaitsForRunningWrite() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/a")]) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a"])
    }

    @Test func writeWaitsForRunningWrite() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a")]) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a"])
    }

    @Test func samePurposeNeverBlocksEvenAcrossClients() {
        var h = Harness()
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a", .forDeleting)]) == ["grant R1 /r/a"])
        #expect(h.request(2, client: 2, purpose: "A", [write("/r/a")]) == ["grant R2 /r/a"])
        #expect(h.request(3, client: 1, purpose: "A", [read("/r/a/x")]) == ["grant R3 /r/a/x"])
        // Another purpose still waits for all of them.
        #expect(h.request(4, client: 3, purpose: "B", [read("/r/a")]) == [])
        #expect(h.end(1, client: 1) == [])
        #expect(h.end(2, client: 2) == ["grant R4 /r/a"])  // a read of /r/a shares with the read of /r/a/x
    }

    @Test func plainWriteOfDirectoryDoesNotWaitForContents() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a/x")])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a")]) == ["grant R2 /r/a"])
        #expect(h.request(3, client: 3, purpose: "C", [read("/r/a")]) == [])  // waits for R2 only
        #expect(h.end(2, client: 2) == ["grant R3 /r/a"])
    }

    @Test func plainWriteOfDirectoryDoesNotBlockContents() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r")])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a/x")]) == ["grant R2 /r/a/x"])
        #expect(h.request(3, client: 3, purpose: "C", [read("/r/a")]) == ["grant R3 /r/a"])
    }

    @Test func readOfDirectoryAndWriteOfContentsShare() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [read("/r/a")])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a/x", .forDeleting)]) == ["grant R2 /r/a/x"])
    }

    @Test func includingContentsChangesNoWaitingRule() {
        var h = Harness()
        // Held while a write inside runs, and a write inside is granted while it is held.
        h.request(1, client: 1, purpose: "A", [write("/r/a/x")])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/a", contents: true)]) == ["grant R2 /r/a"])
        #expect(h.request(3, client: 3, purpose: "C", [write("/r/a/y", contents: true)]) == ["grant R3 /r/a/y"])
        #expect(h.request(4, client: 4, purpose: "D", [write("/r/a", contents: true)]) == [])  // waits for R2 only
        #expect(h.request(5, client: 5, purpose: "E", [read("/r/a/x/z")]) == ["grant R5 /r/a/x/z"])
        #expect(h.end(2, client: 2) == ["grant R4 /r/a"])
    }

    @Test(arguments: [AccessIntent.WritingOptions.forDeleting, .forMoving, .forReplacing])
    func contentExcludingWriteOfDirectoryWaitsForContentsAndBlocksLaterOnes(options: AccessIntent.WritingOptions) {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a/x")])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a", options)]) == [])
        #expect(h.request(3, client: 3, purpose: "C", [read("/r/a/x/deep")]) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a"])
        #expect(h.end(2, client: 2) == ["grant R3 /r/a/x/deep"])
    }

    @Test(arguments: [AccessIntent.WritingOptions.forDeleting, .forMoving, .forReplacing])
    func contentExcludingWriteOfParentBlocksChildren(options: AccessIntent.WritingOptions) {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r", options)])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/a/x")]) == [])
        #expect(h.request(3, client: 3, purpose: "C", [write("/s/a")]) == ["grant R3 /s/a"])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a/x"])
    }

    @Test func itemInsidePackageCountsAsWholePackage() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [read("/r/pkg.bundle/f")])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/pkg.bundle/g")]) == [])
        #expect(h.request(3, client: 3, purpose: "C", [write("/r/pkg.bundle")]) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/pkg.bundle/g"])
        #expect(h.end(2, client: 2) == ["grant R3 /r/pkg.bundle"])
    }

    @Test func readersInsideOnePackageShare() {
        var h = Harness()
        #expect(h.request(1, client: 1, purpose: "A", [read("/r/pkg.bundle/f")]) == ["grant R1 /r/pkg.bundle/f"])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/pkg.bundle/g")]) == ["grant R2 /r/pkg.bundle/g"])
    }

    @Test func waitingWriterBarsLaterReaders() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [read("/r/a")])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a")]) == [])
        #expect(h.request(3, client: 3, purpose: "C", [read("/r/a")]) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a"])
        #expect(h.end(2, client: 2) == ["grant R3 /r/a"])
    }

    @Test func conflictingRequestsAreGrantedInArrivalOrder() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")])
        h.request(3, client: 3, purpose: "C", [write("/r/a")])
        h.request(4, client: 4, purpose: "D", [write("/r/a")])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a"])
        #expect(h.end(2, client: 2) == ["grant R3 /r/a"])
        #expect(h.end(3, client: 3) == ["grant R4 /r/a"])
    }

    @Test func readersWaitingBehindOneWriterAreGrantedTogether() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [read("/r/a")])
        h.request(3, client: 3, purpose: "C", [read("/r/a")])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a", "grant R3 /r/a"])
    }

    @Test func requestWithoutConflictPassesWaiters() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")])
        #expect(h.request(3, client: 3, purpose: "C", [write("/r/b")]) == ["grant R3 /r/b"])
    }

    @Test func multiIntentRequestIsGrantedAtomicallyAndHoldsItsPlaceInEveryQueue() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/b"), write("/r/a")]) == [])
        // /r/b is free, but R2 does not take it early, and a later writer of /r/b queues behind R2.
        #expect(h.request(3, client: 3, purpose: "C", [write("/r/b")]) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/b /r/a"])
        #expect(h.end(2, client: 2) == ["grant R3 /r/b"])
    }

    @Test func multiIntentRequestsInOppositeOrderDoNotDeadlock() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a"), write("/r/b")]) == [])
        #expect(h.request(3, client: 3, purpose: "C", [write("/r/b"), write("/r/a")]) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a /r/b"])
        #expect(h.end(2, client: 2) == ["grant R3 /r/b /r/a"])
    }

    @Test func requestWithoutIntentsIsGrantedAtOnce() {
        var h = Harness()
        #expect(h.request(1, client: 1, purpose: "A", []) == ["grant R1"])
        #expect(h.end(1, client: 1) == [])
    }

    @Test func nestedRequestDoesNotQueueBehindAWaiterOfItsOuterAccess() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a")]) == [])
        #expect(h.request(3, client: 1, purpose: "A", [read("/r/a")], nestedIn: 1) == ["grant R3 /r/a"])
        h.end(3, client: 1)
        #expect(h.end(1, client: 1) == ["grant R2 /r/a"])
    }

    @Test func nestedRequestStillWaitsForGrantedAccessesOfOthers() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/b")])
        #expect(h.request(3, client: 1, purpose: "A", [read("/r/b")], nestedIn: 1) == [])
        #expect(h.end(2, client: 2) == ["grant R3 /r/b"])
    }

    @Test func sameCoordinatorWithoutNestingQueuesBehindEarlierWaiters() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")])
        #expect(h.request(3, client: 1, purpose: "A", [read("/r/a")]) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a"])
        #expect(h.end(2, client: 2) == ["grant R3 /r/a"])
    }

    @Test func nestingInAnEndedRequestCountsAsNotNested() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a")])
        h.request(2, client: 2, purpose: "B", [write("/r/a")])
        h.end(1, client: 1)
        #expect(h.request(3, client: 1, purpose: "A", [read("/r/a")], nestedIn: 1) == [])
        #expect(h.end(2, client: 2) == ["grant R3 /r/a"])
    }

    @Test func presenterCoordinatingInItsHandlerOvertakesTheRequestItServes() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        #expect(h.request(1, client: 1, purpose: "A", [read("/r/a")]) == ["P1 relinquishToReader"])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges"])
        // The presenter saves with a coordinator made with itself (purpose P1): it may write now.
        #expect(h.request(2, client: 2, purpose: "P1", [write("/r/a")]) == ["grant R2 /r/a"])
        // Anybody else still waits behind the read.
        #expect(h.request(3, client: 3, purpose: "C", [write("/r/a")]) == [])
        #expect(h.end(2, client: 2) == [])
        #expect(h.replyAll() == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == ["P1 reacquire", "P1 relinquishToWriter"])
    }
}
