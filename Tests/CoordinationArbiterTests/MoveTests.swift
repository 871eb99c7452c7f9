import CoordinationArbiter
import Testing

/// `item(at:didMoveTo:)` inside a write: fan-out to presenters, stored paths, and waiting intents' paths.
@Suite struct MoveTests {
    /// The stored path of each presenter, from the snapshot.
    func paths(_ h: Harness) -> [UInt64: String] {
        Dictionary(
            uniqueKeysWithValues: h.arbiter.snapshot().presenters.map {
                ($0.presenter.rawValue, $0.path?.description ?? "nil")
            })
    }

    @Test func moveOfDirectoryTellsItsPresentersItsContentsAndItsParent() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/a")
        h.register(2, client: 2, purpose: "P2", path: "/r/a/x")
        h.register(3, client: 3, purpose: "P3", path: "/r")
        #expect(
            h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving), write("/r/c", .forReplacing)]) == [
                "P1 relinquishToWriter", "P2 relinquishToWriter",
            ])
        #expect(h.replyAll() == ["grant R1 /r/a /r/c"])
        #expect(
            h.move(1, client: 1, from: "/r/a", to: "/r/c") == [
                "P1 didMove(/r/c)", "P2 didMove(/r/c/x)", "P3 subitemDidMove(/r/a -> /r/c)",
            ])
        #expect(paths(h) == [1: "/r/c", 2: "/r/c/x", 3: "/r"])
        #expect(h.end(1, client: 1) == ["P1 reacquire", "P2 reacquire"])
    }

    @Test func moveAcrossDirectoriesTellsTheOldOnesItMovedAndTheNewOnesItAppeared() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r")
        h.register(2, client: 2, purpose: "P2", path: "/r/a")
        h.register(3, client: 3, purpose: "P3", path: "/r/b")
        h.request(1, client: 1, purpose: "A", [write("/r/a/x", .forMoving), write("/r/b/x", .forReplacing)])
        #expect(
            h.move(1, client: 1, from: "/r/a/x", to: "/r/b/x") == [
                "P2 subitemDidMove(/r/a/x -> /r/b/x)", "P1 subitemDidMove(/r/a/x -> /r/b/x)",
                "P3 subitemDidAppear(/r/b/x)",
            ])
    }

    @Test func moversOwnPresenterIsNotToldButFollowsTheMove() {
        var h = Harness()
        h.register(1, client: 1, purpose: "A", path: "/r/a")
        h.register(2, client: 1, purpose: "A", path: "/r")
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        #expect(h.move(1, client: 1, from: "/r/a", to: "/r/c") == [])
        #expect(paths(h) == [1: "/r/c", 2: "/r"])
    }

    @Test func waitingIntentsFollowTheMoveExceptReplacingOnes() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving), write("/r/c", .forReplacing)])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/a/x")]) == [])
        #expect(h.request(3, client: 3, purpose: "C", [write("/r/a", .forReplacing)]) == [])
        #expect(h.move(1, client: 1, from: "/r/a", to: "/r/c") == [])
        // R2 now reads /r/c/x and R3 still replaces /r/a: both wait for R1, no longer for each other.
        #expect(h.end(1, client: 1) == ["grant R2 /r/c/x", "grant R3 /r/a"])
    }

    @Test func grantedClaimsStayWhereTheyWereGranted() {
        var h = Harness()
        // The mover did not claim the destination: a waiter that follows the move out of its claim goes ahead.
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/a/x")]) == [])
        #expect(h.move(1, client: 1, from: "/r/a", to: "/r/c") == ["grant R2 /r/c/x"])
        #expect(h.request(3, client: 3, purpose: "C", [read("/r/a")]) == [])
        #expect(h.end(1, client: 1) == ["grant R3 /r/a"])
    }

    @Test func movedIntentWaitsForWhoeverHoldsItsNewPath() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        h.request(2, client: 2, purpose: "B", [write("/r/c")])
        #expect(h.request(3, client: 3, purpose: "C", [read("/r/a")]) == [])
        h.move(1, client: 1, from: "/r/a", to: "/r/c")
        #expect(h.end(1, client: 1) == [])
        #expect(h.end(2, client: 2) == ["grant R3 /r/c"])
    }

    @Test func requestWhoseRoundEndsAfterAMoveMadeItConflictWaitsWithoutASecondRound() {
        var h = Harness()
        h.register(1, client: 4, purpose: "P1", path: "/r/d/x")
        // A plain write of directory /r/d does not exclude its contents, so R3 below starts its round.
        h.request(1, client: 1, purpose: "A", [write("/r/d")])
        h.request(2, client: 2, purpose: "B", [write("/r/e/x")])
        #expect(h.request(3, client: 3, purpose: "C", [read("/r/d/x")]) == ["P1 relinquishToReader"])
        #expect(h.move(1, client: 1, from: "/r/d", to: "/r/e") == ["P1 didMove(/r/e/x)"])
        #expect(h.replyAll() == ["P1 savePresentedItemChanges"])
        #expect(h.replyAll() == [])  // round over, but R2 holds /r/e/x now
        #expect(h.end(2, client: 2) == ["P1 didChange", "grant R3 /r/e/x"])
        #expect(h.end(3, client: 3) == ["P1 reacquire"])
    }

    @Test func moveOfItemInsidePackageKeepsThePackageClaim() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/pkg.bundle/f", .forMoving)])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/pkg.bundle/f")]) == [])
        h.move(1, client: 1, from: "/r/pkg.bundle/f", to: "/r/pkg.bundle/g")
        h.end(1, client: 1)
        #expect(h.model.requests[RequestID(2)]?.grantedPaths == ["/r/pkg.bundle/g"])
        #expect(h.arbiter.snapshot().claims.map(\.path) == ["/r/pkg.bundle"])
    }

    @Test func moveOntoItselfChangesNothing() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r")
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        #expect(h.move(1, client: 1, from: "/r/a", to: "/r/a") == [])
    }

    @Test func moveOutsideAGrantedWriteIsAViolation() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [read("/r/a")])
        #expect(h.move(1, client: 1, from: "/r/a", to: "/r/b") == ["failClient C1 moveOutsideWriteAccess(request#1)"])
        h.request(2, client: 2, purpose: "B", [write("/r/a")])
        #expect(h.move(2, client: 2, from: "/r/a", to: "/r/b") == ["failClient C2 moveOutsideWriteAccess(request#2)"])
        #expect(h.move(1, client: 2, from: "/r/a", to: "/r/b") == ["failClient C2 requestOfAnotherClient(request#1)"])
        #expect(h.move(9, client: 1, from: "/r/a", to: "/r/b") == [])
    }
}
