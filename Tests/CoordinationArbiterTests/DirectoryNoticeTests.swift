import CoordinationArbiter
import Testing

/// What presenters of enclosing directories hear of each kind of write beneath them, and what the presenters of
/// the item hear of a metadata-only write (issue 15, points 2 and 4).
@Suite struct DirectoryNoticeTests {
    static let appeared = ItemPresence(existedBefore: false, existsAfter: true)
    static let changed = ItemPresence(existedBefore: true, existsAfter: true)
    static let removed = ItemPresence(existedBefore: true, existsAfter: false)
    static let absent = ItemPresence(existedBefore: false, existsAfter: false)

    /// A harness with presenter P1 (client 2) of the directory `/r`.
    func harness() -> Harness {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r")
        return h
    }

    @Test(arguments: [AccessIntent.WritingOptions(), .forMerging, .forReplacing, .contentIndependentMetadataOnly])
    func creationBeneathReportsAppearance(options: AccessIntent.WritingOptions) {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/x/new", options)]) == ["grant R1 /r/x/new +presence"])
        #expect(h.end(1, client: 1, presence: [Self.appeared]) == ["P1 subitemDidAppear(/r/x/new)"])
    }

    @Test(arguments: [AccessIntent.WritingOptions(), .forMerging, .forReplacing, .contentIndependentMetadataOnly])
    func changeOfAnExistingItemReportsChange(options: AccessIntent.WritingOptions) {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a", options)]) == ["grant R1 /r/a +presence"])
        #expect(h.end(1, client: 1, presence: [Self.changed]) == ["P1 subitemDidChange(/r/a)"])
    }

    @Test func deletionAsksTheDirectoryToAccommodateThenReportsChange() {
        var h = harness()
        h.register(2, client: 3, purpose: "P2", path: "/r/a")
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a", .forDeleting)]) == ["P2 relinquishToWriter"])
        #expect(h.replyAll() == ["P2 accommodateDeletion", "P1 accommodateSubitemDeletion(/r/a)"])
        #expect(h.replyAll() == ["grant R1 /r/a +presence"])
        #expect(h.end(1, client: 1, presence: [Self.removed]) == ["P1 subitemDidChange(/r/a)", "P2 reacquire"])
    }

    @Test func directoryThatRefusesTheDeletionFailsIt() {
        var h = harness()
        #expect(
            h.request(1, client: 1, purpose: "A", [write("/r/a/b", .forDeleting)]) == [
                "P1 accommodateSubitemDeletion(/r/a/b)"
            ])
        #expect(h.replyAll(failure: PresenterFailure(encoded: [1])) == ["fail R1 presenterFailed"])
    }

    @Test func replacementDoesNotAskTheDirectoryToAccommodateADeletion() {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a", .forReplacing)]) == ["grant R1 /r/a +presence"])
    }

    @Test func writeThatLeavesNoItemReportsNothing() {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a", .forDeleting)]).count == 1)
        #expect(h.replyAll() == ["grant R1 /r/a +presence"])
        #expect(h.end(1, client: 1, presence: [Self.absent]) == [])
    }

    @Test func writeWithoutPresenceReportReportsChange() {
        var h = harness()
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a")]) == ["grant R1 /r/a +presence"])
        #expect(h.end(1, client: 1) == ["P1 subitemDidChange(/r/a)"])
    }

    @Test func moveIsReportedOnceByTheMove() {
        var h = harness()
        #expect(
            h.request(1, client: 1, purpose: "A", [write("/r/a", .forMoving), write("/r/b", .forReplacing)]) == [
                "grant R1 /r/a /r/b +presence"
            ])
        #expect(h.move(1, client: 1, from: "/r/a", to: "/r/b") == ["P1 subitemDidMove(/r/a -> /r/b)"])
        #expect(h.end(1, client: 1, presence: [nil, Self.appeared]) == [])
    }

    @Test func metadataOnlyWriteTellsTheItemItChanged() {
        var h = harness()
        h.register(2, client: 3, purpose: "P2", path: "/r/a")
        #expect(
            h.request(1, client: 1, purpose: "A", [write("/r/a", .contentIndependentMetadataOnly)]) == [
                "P2 relinquishToWriter"
            ])
        #expect(h.replyAll() == ["grant R1 /r/a +presence"])
        #expect(
            h.end(1, client: 1, presence: [Self.changed]) == [
                "P2 didChange", "P1 subitemDidChange(/r/a)", "P2 reacquire",
            ])
    }

    @Test func presenceIsAskedOnlyWhenADirectoryPresenterListens() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/s")
        h.register(2, client: 2, purpose: "A", path: "/r")
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/a")]) == ["grant R1 /r/a"])
        #expect(h.end(1, client: 1) == [])
        #expect(h.request(2, client: 1, purpose: "B", [read("/r/a")]) == ["grant R2 /r/a"])
        #expect(h.request(3, client: 1, purpose: "B", [write("/r/b", .forMoving)]) == ["grant R3 /r/b"])
    }

    @Test func packagePresenterHearsOfACreationInside() {
        var h = Harness()
        h.register(1, client: 2, purpose: "P1", path: "/r/pkg.bundle")
        #expect(h.request(1, client: 1, purpose: "A", [write("/r/pkg.bundle/f", .forReplacing)]) == [
            "P1 relinquishToWriter"
        ])
        #expect(h.replyAll() == ["P1 accommodateSubitemDeletion(/r/pkg.bundle/f)"])
        #expect(h.replyAll() == ["grant R1 /r/pkg.bundle/f +presence"])
        #expect(
            h.end(1, client: 1, presence: [Self.appeared]) == ["P1 subitemDidAppear(/r/pkg.bundle/f)", "P1 reacquire"])
    }
}
