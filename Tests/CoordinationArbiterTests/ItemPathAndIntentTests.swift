import CoordinationArbiter
import Testing

/// Paths, package depths and intents: the small value types the host builds events from.
@Suite struct ItemPathAndIntentTests {
    @Test func parsesAndPrintsPaths() {
        #expect(ItemPath("/r/a/x").components == ["r", "a", "x"])
        #expect(ItemPath("//r//a/").components == ["r", "a"])
        #expect(ItemPath("/") == .root)
        #expect(ItemPath.root.description == "/")
        #expect(ItemPath("/r/a").description == "/r/a")
        #expect(ItemPath(components: ["r", "", "a"]) == "/r/a")
        #expect(ItemPath("/r/a").parent == "/r")
        #expect(ItemPath.root.parent == nil)
        #expect(ItemPath("/r").appending("a") == "/r/a")
        #expect(ItemPath("/r/a/x").prefix(1) == "/r")
        #expect(ItemPath("/r/a/x").lastComponent == "x")
    }

    @Test func relatesPaths() {
        #expect(ItemPath("/r/a/x").hasPrefix("/r/a"))
        #expect(ItemPath("/r/a").hasPrefix("/r/a"))
        #expect(!ItemPath("/r/ab").hasPrefix("/r/a"))
        #expect(ItemPath("/r").isAncestor(of: "/r/a/x"))
        #expect(!ItemPath("/r/a").isAncestor(of: "/r/a"))
        #expect(ItemPath.root.isAncestor(of: "/r"))
        #expect(ItemPath("/r/a/x").movingPrefix(from: "/r/a", to: "/s") == "/s/x")
        #expect(ItemPath("/r/b").movingPrefix(from: "/r/a", to: "/s") == nil)
        #expect([ItemPath("/r/b"), "/r/a/x", "/r/a", "/r"].sorted() == ["/r", "/r/a", "/r/a/x", "/r/b"])
    }

    @Test func findsPackagesByExtensionIgnoringCase() {
        let extensions: Set<String> = ["bundle", "pages"]
        #expect(ItemPath("/r/Doc.PAGES/Data/x.bundle/f").packageRootDepths(extensions: extensions) == [2, 4])
        #expect(ItemPath("/r/.bundle/f").packageRootDepths(extensions: extensions) == [])
        #expect(ItemPath("/r/x.bundle").packageRootDepths(extensions: []) == [])
        #expect(ItemPath("/r/x.").packageRootDepths(extensions: extensions) == [])
    }

    @Test func normalizesPackageDepths() {
        let intent = AccessIntent.reading("/r/a/x", packageRootDepths: [3, 0, 2, 2, 9])
        #expect(intent.packageRootDepths == [2, 3])
        #expect(AccessIntent.writing("/r", options: .forDeleting).packageRootDepths == [])
    }

    @Test func optionsKeepApplesRawValues() {
        #expect(AccessIntent.ReadingOptions.withoutChanges.rawValue == 1)
        #expect(AccessIntent.ReadingOptions.resolvesSymbolicLink.rawValue == 2)
        #expect(AccessIntent.ReadingOptions.immediatelyAvailableMetadataOnly.rawValue == 4)
        #expect(AccessIntent.ReadingOptions.forUploading.rawValue == 8)
        #expect(AccessIntent.WritingOptions.forDeleting.rawValue == 1)
        #expect(AccessIntent.WritingOptions.forMoving.rawValue == 2)
        #expect(AccessIntent.WritingOptions.forMerging.rawValue == 4)
        #expect(AccessIntent.WritingOptions.forReplacing.rawValue == 8)
        #expect(AccessIntent.WritingOptions.contentIndependentMetadataOnly.rawValue == 16)
    }

    @Test func packageClaimFollowsAMovedPackage() {
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving), write("/r/c", .forReplacing)])
        #expect(h.request(2, client: 2, purpose: "B", [read("/r/a/doc.bundle/f")]) == [])
        h.move(1, client: 1, from: "/r/a", to: "/r/c")
        #expect(h.arbiter.snapshot().claims.map(\.path) == ["/r/a", "/r/c", "/r/c/doc.bundle"])
        // Still a package: a write of another file in it waits for the read.
        #expect(h.end(1, client: 1) == ["grant R2 /r/c/doc.bundle/f"])
        #expect(h.request(3, client: 3, purpose: "C", [write("/r/c/doc.bundle/g")]) == [])
    }

    @Test func describesActionsForTraces() {
        let delivery = PresenterDelivery(
            client: ClientID(2), presenter: PresenterID(3), id: MessageID(4),
            message: .subitemDidMove(from: "/a", to: "/b"),
            request: RequestID(5))
        #expect(
            ArbiterAction.send(delivery).description
                == "send message#4 presenter#3(client#2) <- subitemDidMove(/a -> /b) for request#5")
        #expect(
            ArbiterAction.fail(RequestID(1), ClientID(2), .timedOut("/x")).description
                == "fail request#1 of client#2: timedOut(/x)")
        #expect(AccessIntent.writing("/x", options: .forDeleting).description == "write[0x1] /x")
        #expect(AccessIntent.reading("/x", includesContents: true).description == "read /x +contents")
    }

    @Test func includingContentsIsPartOfTheIntentAndFollowsAMove() {
        #expect(AccessIntent.reading("/x") != AccessIntent.reading("/x", includesContents: true))
        #expect(!AccessIntent.writing("/x").includesContents)
        var h = Harness()
        h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving)])
        h.request(2, client: 2, purpose: "B", [read("/r/a/x", contents: true)])
        h.move(1, client: 1, from: "/r/a", to: "/r/c")
        let waiter = h.arbiter.snapshot().claims.first { $0.path == "/r/c/x" }?.waiters.first
        #expect(waiter?.intent == read("/r/c/x", contents: true))
    }
}

/// The test model must itself reject impossible actions, or the randomized test proves nothing.
@Suite struct ActionModelTests {
    @Test func rejectsImpossibleActions() {
        var model = ActionModel()
        let request = RequestID(1)
        model.requested(request, client: ClientID(1), purpose: PurposeID("A"), intents: [read("/r")], nestedIn: nil)
        model.registered(PresenterID(1), client: ClientID(2), purpose: PurposeID("A"), path: "/r")
        model.registered(PresenterID(2), client: ClientID(2), purpose: PurposeID("B"), path: "/r")

        model.apply(.grant(request, ClientID(1), paths: ["/r"]))
        #expect(model.violations.isEmpty)
        model.apply(.grant(request, ClientID(1), paths: ["/r"]))  // already granted
        model.apply(.fail(request, ClientID(1), .cancelled))  // not waiting
        model.apply(.grant(RequestID(9), ClientID(1), paths: []))  // unknown
        model.apply(
            .send(
                PresenterDelivery(
                    client: ClientID(2), presenter: PresenterID(1), id: MessageID(1), message: .didChange,
                    request: request)))  // own purpose
        model.apply(
            .send(
                PresenterDelivery(
                    client: ClientID(2), presenter: PresenterID(2), id: MessageID(1), message: .didChange,
                    request: request)))  // id reused
        model.apply(
            .send(
                PresenterDelivery(
                    client: ClientID(3), presenter: PresenterID(2), id: MessageID(5), message: .didChange,
                    request: request)))  // wrong client
        model.apply(
            .send(
                PresenterDelivery(
                    client: ClientID(2), presenter: PresenterID(7), id: MessageID(6), message: .didChange,
                    request: request)))  // unregistered
        model.apply(
            .send(
                PresenterDelivery(
                    client: ClientID(2), presenter: PresenterID(2), id: MessageID(8),
                    message: .reacquire(relinquishMessage: MessageID(2)), request: request)))  // no relinquish
        model.apply(
            .send(
                PresenterDelivery(
                    client: ClientID(2), presenter: PresenterID(2), id: MessageID(9), message: .relinquishToReader,
                    request: request)))  // not waiting
        model.apply(.cancelTimer(request))  // not armed
        model.apply(.startTimer(request, deadline: Instant(nanoseconds: 1)))  // not waiting
        #expect(model.violations.count == 11)
    }

    @Test func flagsAWaiterThatEscapesTheMoversClaims() {
        for moverWrites in [false, true] {
            var model = ActionModel()
            let mover = RequestID(1)
            let moverIntents = [moverWrites ? write("/r/p.bundle/f") : read("/r/p.bundle/f"), write("/r/z")]
            model.requested(mover, client: ClientID(1), purpose: PurposeID("A"), intents: moverIntents, nestedIn: nil)
            model.apply(.grant(mover, ClientID(1), paths: ["/r/p.bundle/f", "/r/z"]))
            model.requested(
                RequestID(2), client: ClientID(2), purpose: PurposeID("B"), intents: [write("/r/p.bundle/g")],
                nestedIn: nil)
            model.moved(from: "/r/p.bundle/g", to: "/r/q", by: mover)
            // A write of the package holds what moves out of it; a read does not (a documented gap), and the
            // model notices the waiter that escaped.
            let escaped = ["request#2 escaped from request#1's claims when /r/p.bundle/g moved to /r/q"]
            #expect(model.violations == (moverWrites ? [] : escaped))
            #expect(model.movesWithWaiters == 1)
        }
    }
}
