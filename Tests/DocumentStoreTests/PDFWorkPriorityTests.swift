import Testing

@testable import StoreCore

/// Background PDF work (the search index's extraction) beside interactive work, in the pure scheduler: events in,
/// actions out.
@Suite("PDF work priorities")
struct PDFWorkPriorityTests {
    @Test("Background requests leave the last idle worker to interactive ones, which never wait behind them")
    func backgroundKeepsAWorkerIdle() {
        let t0 = ContinuousClock.now
        var scheduler = PDFWorkScheduler(slots: 3, maximumQueuedPerKey: 8)
        #expect(scheduler.submitted(1, key: "a", priority: .background, now: t0) == [.start(1, slot: 0)])
        #expect(scheduler.submitted(2, key: "b", priority: .background, now: t0) == [.start(2, slot: 1)])
        #expect(scheduler.submitted(3, key: "c", priority: .background, now: t0) == [])  // slot 2 stays idle
        #expect(scheduler.backgroundQueuedCount == 1)
        // An interactive request of the same document as a background one starts at once on the idle worker.
        #expect(scheduler.submitted(10, key: "a", now: t0) == [.start(10, slot: 2)])
        #expect(scheduler.submitted(11, key: "d", now: t0) == [])
        // A worker comes free: the waiting interactive request takes it, not the older background one.
        #expect(scheduler.finished(slot: 0, key: "a", now: t0) == [.start(11, slot: 0)])
        #expect(scheduler.finished(slot: 0, key: "d", now: t0) == [])  // one idle: background still waits
        #expect(scheduler.finished(slot: 2, key: "a", now: t0) == [.start(3, slot: 2)])
        #expect(scheduler.backgroundQueuedCount == 0)
    }

    @Test("A worker alone runs background work when idle; interactive work goes first whenever both wait")
    func singleWorker() {
        let t0 = ContinuousClock.now
        var scheduler = PDFWorkScheduler(slots: 1, maximumQueuedPerKey: 8)
        #expect(scheduler.submitted(1, key: "a", priority: .background, now: t0) == [.start(1, slot: 0)])
        #expect(scheduler.submitted(2, key: "a", priority: .background, now: t0) == [])
        #expect(scheduler.submitted(3, key: "b", now: t0) == [])
        #expect(scheduler.finished(slot: 0, key: "a", now: t0) == [.start(3, slot: 0)])
        #expect(scheduler.finished(slot: 0, key: "b", now: t0) == [.start(2, slot: 0)])
    }

    @Test("Background runs count towards neither a document's limit nor its heaviness; a waiting one is withdrawn")
    func backgroundOutsideFairness() {
        let t0 = ContinuousClock.now
        var scheduler = PDFWorkScheduler(slots: 4, maximumQueuedPerKey: 8, slowRun: .seconds(1))
        #expect(scheduler.submitted(1, key: "a", priority: .background, now: t0) == [.start(1, slot: 0)])
        #expect(scheduler.submitted(2, key: "a", priority: .background, now: t0) == [.start(2, slot: 1)])
        // Slow background runs do not make "a" heavy.
        #expect(scheduler.finished(slot: 0, key: "a", now: t0 + .seconds(5)) == [])
        #expect(!scheduler.isHeavy("a", at: t0 + .seconds(5)))
        #expect(scheduler.submitted(3, key: "a", priority: .background, now: t0) == [.start(3, slot: 0)])
        #expect(scheduler.submitted(4, key: "a", priority: .background, now: t0) == [.start(4, slot: 2)])
        #expect(scheduler.submitted(6, key: "a", priority: .background, now: t0) == [])
        let withdrawn = scheduler.withdrawn(6)
        let again = scheduler.withdrawn(6)
        #expect(withdrawn && !again)
        // Three of "a"'s background requests run; its interactive one is not held to "one per document" by them.
        #expect(scheduler.submitted(5, key: "a", now: t0) == [.start(5, slot: 3)])
        #expect(scheduler.submitted(7, key: "b", priority: .background, now: t0) == [])
        #expect(scheduler.submitted(7, key: "b", priority: .background, now: t0) == [.rejectQueueFull(7)])  // twice
    }
}
