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
        // P3 presents /r, which encloses the replaced destination: the grant asks for the items' presence.
        #expect(h.replyAll() == ["grant R1 /r/a /r/c +presence"])
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

    /// The claims the snapshot shows on `path`: `R<request> <intent>` for holders, then `waits R<request>`.
    func claims(_ h: Harness, at path: ItemPath) -> [String] {
        guard let claims = h.arbiter.snapshot().claims.first(where: { $0.path == path }) else { return [] }
        return claims.holders.map { "R\($0.request.rawValue) \($0.intent)" }
            + claims.waiters.map { "waits R\($0.request.rawValue)" }
    }

    @Test func moverAlsoHoldsTheNewPlaceUntilItsAccessEnds() {
        var h = Harness()
        // The mover did not claim the destination: the waiter that follows the item still waits for the mover.
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/a")]) == [])
        #expect(h.move(1, client: 1, from: "/r/a", to: "/r/c") == [])
        #expect(claims(h, at: "/r/a") == ["R1 write[0x2] /r/a"])
        #expect(claims(h, at: "/r/c") == ["R1 write[0x2] /r/c", "waits R2"])
        #expect(h.arbiter.snapshot().claims.first { $0.path == "/r/c" }?.waiters.first?.blockedBy == [RequestID(1)])
        // The grant still reports the path it was granted; the old place stays held too.
        #expect(h.model.requests[RequestID(1)]?.grantedPaths == ["/r/a"])
        #expect(h.request(3, client: 3, purpose: "C", [read("/r/a")]) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/c", "grant R3 /r/a"])
        h.end(2, client: 2)
        h.end(3, client: 3)
        #expect(h.arbiter.snapshot().claims.isEmpty)
    }

    @Test func waitersInsideAMovedDirectoryWaitForTheMover() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/a/x")]) == [])
        #expect(h.request(3, client: 3, purpose: "C", [write("/r/a/x")]) == [])
        #expect(h.move(1, client: 1, from: "/r/a", to: "/r/c") == [])
        #expect(claims(h, at: "/r/c") == ["R1 write[0x2] /r/c"])
        #expect(claims(h, at: "/r/c/x") == ["waits R2", "waits R3"])
        // A new request inside the new place waits too (the gained claim excludes contents, as the moved one).
        #expect(h.request(4, client: 4, purpose: "D", [read("/r/c/z")]) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/c/x", "grant R4 /r/c/z"])
        #expect(h.end(2, client: 2) == ["grant R3 /r/c/x"])
    }

    @Test func aChainOfMovesInOneAccessIsFollowed() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a/x")]) == [])
        #expect(h.move(1, client: 1, from: "/r/a", to: "/r/b") == [])
        #expect(h.move(1, client: 1, from: "/r/b", to: "/r/c") == [])
        #expect(h.arbiter.snapshot().claims.map(\.path) == ["/r/a", "/r/b", "/r/c", "/r/c/x"])
        #expect(claims(h, at: "/r/c") == ["R1 write[0x2] /r/c"])
        // Moving back to where it started gains nothing new: the original claim covers it.
        #expect(h.move(1, client: 1, from: "/r/c", to: "/r/a") == [])
        #expect(claims(h, at: "/r/a") == ["R1 write[0x2] /r/a"])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a/x"])
        h.end(2, client: 2)
        #expect(h.arbiter.snapshot().claims.isEmpty)
    }

    @Test func claimAlreadyHeldAtTheDestinationIsNotAddedAgain() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving), write("/r/c", .forReplacing)])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/a")]) == [])
        h.move(1, client: 1, from: "/r/a", to: "/r/c")
        #expect(claims(h, at: "/r/c") == ["R1 write[0x8] /r/c", "waits R2"])
    }

    @Test func itemMovedOutOfADirectoryTheMoverExcludesStaysHeld() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forDeleting)])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/a/x/y")]) == [])
        #expect(h.move(1, client: 1, from: "/r/a/x", to: "/r/t/x") == [])
        #expect(claims(h, at: "/r/t/x") == ["R1 write[0x1] /r/t/x"])
        // Moving within the directory gains nothing: the directory's claim still covers the new place.
        #expect(h.move(1, client: 1, from: "/r/a/w", to: "/r/a/v") == [])
        #expect(claims(h, at: "/r/a/v") == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/t/x/y"])
    }

    @Test func itemMovedOutOfAPackageTheMoverWritesStaysHeld() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/pkg.bundle/f")])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/pkg.bundle/d/g")]) == [])
        #expect(h.move(1, client: 1, from: "/r/pkg.bundle/d", to: "/r/out") == [])
        // A plain write of a package covers everything in it: the moved part is held as if moved (`.forMoving`).
        #expect(claims(h, at: "/r/out") == ["R1 write[0x2] /r/out"])
        #expect(claims(h, at: "/r/out/g") == ["waits R2"])
        #expect(h.end(1, client: 1) == ["grant R2 /r/out/g"])
    }

    @Test func replacingWaiterStaysAtTheOldPathAndWaitsForTheMover() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/a", .forReplacing)]) == [])
        #expect(h.request(3, client: 3, purpose: "C", [write("/r/c", .forReplacing)]) == ["grant R3 /r/c"])
        // The mover moves onto a path it did not claim (held by R3): it gains the claim anyway, and nothing is
        // granted against it later.
        #expect(h.move(1, client: 1, from: "/r/a", to: "/r/c") == [])
        #expect(claims(h, at: "/r/c") == ["R1 write[0x2] /r/c", "R3 write[0x8] /r/c"])
        #expect(h.request(4, client: 4, purpose: "D", [read("/r/c")]) == [])
        #expect(h.end(3, client: 3) == [])
        #expect(h.end(1, client: 1) == ["grant R2 /r/a", "grant R4 /r/c"])
    }

    @Test func requestAskingPresentersAtTheDestinationWaitsForTheMoverAfterItsRound() {
        var h = Harness()
        h.register(1, client: 4, purpose: "P1", path: "/r/c")
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/c", .withoutChanges)]) == ["P1 relinquishToReader"])
        h.move(1, client: 1, from: "/r/a", to: "/r/c")
        #expect(h.replyAll() == [])  // round over, but the mover holds /r/c now
        #expect(h.end(1, client: 1) == ["grant R2 /r/c"])
        #expect(h.end(2, client: 2) == ["P1 reacquire"])
    }

    @Test func disconnectingTheMoverReleasesTheClaimsItGained() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        h.request(2, client: 2, purpose: "B", [read("/r/a/x")])
        h.move(1, client: 1, from: "/r/a", to: "/r/c")
        #expect(h.disconnect(1) == ["grant R2 /r/c/x"])
        #expect(h.arbiter.snapshot().claims.map(\.path) == ["/r/c/x"])
    }

    @Test func moveOfAnItemTheMoverDoesNotHoldGainsNothing() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        h.move(1, client: 1, from: "/r/z", to: "/r/y")
        #expect(h.arbiter.snapshot().claims.map(\.path) == ["/r/a"])
        #expect(h.request(2, client: 2, purpose: "B", [write("/r/y")]) == ["grant R2 /r/y"])
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
