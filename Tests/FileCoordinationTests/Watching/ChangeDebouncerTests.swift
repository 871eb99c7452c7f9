#if DEBUG  // @testable needs a debug build (or -enable-testing)
import Testing

@testable import FileCoordination

/// The pure debouncer: merging, windows and the exact suppression rule.
@Suite("Debouncing and suppression (pure)")
struct ChangeDebouncerTests {
    let start = ContinuousClock.now
    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }
    func change(_ kind: WatchedChange.Kind, token: UInt64 = 1, path: String = "/d/f") -> WatchedChange {
        WatchedChange(token: token, path: path, kind: kind)
    }
    func debouncer(grace: Duration = .milliseconds(20)) -> ChangeDebouncer {
        ChangeDebouncer(debounce: .milliseconds(20), maximumDelay: .milliseconds(100), grace: grace)
    }

    @Test func kindsMergeAsDocumented() {
        typealias Kind = WatchedChange.Kind
        let cases: [(Kind, Kind, Kind?)] = [
            (.contentsChanged, .contentsChanged, .contentsChanged),
            (.metadataChanged, .contentsChanged, .contentsChanged),
            (.contentsChanged, .metadataChanged, .contentsChanged),
            (.metadataChanged, .metadataChanged, .metadataChanged),
            (.contentsChanged, .deleted, .deleted),
            (.deleted, .contentsChanged, .contentsChanged),
            (.deleted, .metadataChanged, .contentsChanged),
            (.overflow, .deleted, .overflow),
            (.contentsChanged, .overflow, .overflow),
            (.movedAway(to: nil), .movedAway(to: "/d/g"), .movedAway(to: "/d/g")),
            (.movedAway(to: "/d/g"), .contentsChanged, nil),
            (.contentsChanged, .movedAway(to: nil), nil),
            (.overflow, .movedAway(to: nil), nil),
        ]
        for (earlier, later, merged) in cases {
            #expect(earlier.merged(with: later) == merged, "\(earlier) then \(later)")
        }
    }

    @Test func aBurstIsOneReportAtTheEndOfTheWindow() {
        var debouncer = debouncer()
        for millisecond in 0..<10 { debouncer.changeObserved(change(.contentsChanged), at: at(millisecond)) }
        #expect(debouncer.nextDeadline == at(29))
        #expect(debouncer.deadlineReached(at: at(28)).isEmpty)
        #expect(debouncer.deadlineReached(at: at(29)) == [change(.contentsChanged)])
        #expect(debouncer.nextDeadline == nil)
    }

    @Test func aSteadyWriterIsReportedAfterTheMaximumDelay() {
        var debouncer = debouncer()
        for millisecond in stride(from: 0, through: 150, by: 10) {
            debouncer.changeObserved(change(.contentsChanged), at: at(millisecond))
        }
        #expect(debouncer.nextDeadline == at(100))
    }

    @Test func aMoveAndALaterWriteAreReportedInOrder() {
        var debouncer = debouncer()
        debouncer.changeObserved(change(.movedAway(to: nil)), at: at(0))
        debouncer.changeObserved(change(.movedAway(to: "/d/g")), at: at(0))
        debouncer.changeObserved(change(.contentsChanged, path: "/d/g"), at: at(5))
        debouncer.changeObserved(change(.metadataChanged, token: 2, path: "/d/h"), at: at(6))
        #expect(
            debouncer.deadlineReached(at: at(30)) == [
                change(.movedAway(to: "/d/g")), change(.contentsChanged, path: "/d/g"),
                change(.metadataChanged, token: 2, path: "/d/h"),
            ])
    }

    @Test func suppressionCoversBeginToEndPlusGraceExactly() {
        var debouncer = debouncer(grace: .milliseconds(20))
        debouncer.writeBegan(id: 1, path: "/d/f", at: at(10))
        #expect(!debouncer.isSuppressed("/d/f", at: at(9)))
        #expect(debouncer.isSuppressed("/d/f", at: at(10)))
        #expect(debouncer.isSuppressed("/d/f", at: at(5_000)))  // not ended yet
        #expect(!debouncer.isSuppressed("/d/g", at: at(11)))
        debouncer.writeEnded(id: 1, at: at(50))
        #expect(debouncer.isSuppressed("/d/f", at: at(70)))
        #expect(!debouncer.isSuppressed("/d/f", at: at(70) + .nanoseconds(1)))
    }

    @Test func aDeletionOrMoveAfterTheWriteEndedIsNotSuppressedByTheGrace() {
        var debouncer = debouncer(grace: .milliseconds(20))
        debouncer.writeBegan(id: 1, path: "/d/f", at: at(10))
        #expect(debouncer.isSuppressed("/d/f", at: at(30), kind: .deleted))  // during the write: its own
        debouncer.writeEnded(id: 1, at: at(50))
        #expect(debouncer.isSuppressed("/d/f", at: at(60), kind: .contentsChanged))
        #expect(!debouncer.isSuppressed("/d/f", at: at(60), kind: .deleted))
        #expect(!debouncer.isSuppressed("/d/f", at: at(60), kind: .movedAway(to: nil)))
        let reported = debouncer.changeObserved(change(.deleted), at: at(61))
        #expect(reported)
        let due = debouncer.deadlineReached(at: at(200))
        #expect(due == [change(.deleted)])
    }

    @Test func suppressedChangesAreDroppedButOverflowAndWaitingChangesAreNot() {
        var debouncer = debouncer()
        debouncer.changeObserved(change(.metadataChanged), at: at(0))
        debouncer.writeBegan(id: 7, path: "/d/f", at: at(1))
        let during = debouncer.changeObserved(change(.contentsChanged), at: at(2))
        let overflow = debouncer.changeObserved(change(.overflow, token: 2), at: at(3))
        let otherPath = debouncer.changeObserved(change(.contentsChanged, token: 3, path: "/d/other"), at: at(3))
        debouncer.writeEnded(id: 7, at: at(4))
        let lastInGrace = debouncer.changeObserved(change(.contentsChanged), at: at(24))
        let afterGrace = debouncer.changeObserved(change(.contentsChanged), at: at(25))
        #expect(!during && overflow && otherPath && !lastInGrace && afterGrace)
        let reported = debouncer.deadlineReached(at: at(100))
        #expect(
            reported == [
                change(.contentsChanged), change(.overflow, token: 2),
                change(.contentsChanged, token: 3, path: "/d/other"),
            ])
    }

    @Test func anUnwatchedTokenLosesItsWaitingChanges() {
        var debouncer = debouncer()
        debouncer.changeObserved(change(.contentsChanged), at: at(0))
        debouncer.tokenRemoved(1)
        #expect(debouncer.nextDeadline == nil)
        #expect(debouncer.deadlineReached(at: at(100)).isEmpty)
    }

    @Test func pollTimeoutsRoundUpToWholeMilliseconds() {
        typealias Reader = InotifyWatcher.Reader
        #expect(Reader.milliseconds(from: start, to: nil) == -1)
        #expect(Reader.milliseconds(from: start, to: start - .seconds(1)) == 0)
        #expect(Reader.milliseconds(from: start, to: start + .microseconds(20_100)) == 21)
        #expect(Reader.milliseconds(from: start, to: start + .milliseconds(20)) == 20)
    }
}
#endif
