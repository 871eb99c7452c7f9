import CQuireLinux
import Foundation
import Logging
import PDFWorkerWire
import Testing

@testable import StoreCore

#if canImport(Glibc)
    import Glibc
#endif

/// Background PDF work (the search index's extraction) beside interactive work: in the pure scheduler (events in,
/// actions out), and in the pool's real worker processes.
@Suite("PDF work priorities")
struct PDFWorkPriorityTests {
    @Test("Background requests run on the background slots only, first come first served; interactive ones never wait for them")
    func backgroundOnItsOwnSlots() {
        let t0 = ContinuousClock.now
        var scheduler = PDFWorkScheduler(slots: 2, backgroundSlots: 1, maximumQueuedPerKey: 8)
        #expect(scheduler.submitted(1, key: "a", priority: .background, now: t0) == [.start(1, slot: 2)])
        #expect(scheduler.submitted(2, key: "b", priority: .background, now: t0) == [])  // both interactive slots idle
        #expect(scheduler.backgroundQueuedCount == 1)
        // Interactive requests of any document, the background one's included, take the interactive slots.
        #expect(scheduler.submitted(10, key: "a", now: t0) == [.start(10, slot: 0)])
        #expect(scheduler.submitted(11, key: "c", now: t0) == [.start(11, slot: 1)])
        #expect(scheduler.runningCount == 2)
        #expect(scheduler.submitted(12, key: "d", now: t0) == [])
        // The background slot comes free: the waiting background request takes it, never the interactive one.
        #expect(scheduler.finished(slot: 2, key: "a", now: t0) == [.start(2, slot: 2)])
        #expect(scheduler.finished(slot: 1, key: "c", now: t0) == [.start(12, slot: 1)])
        #expect(scheduler.backgroundQueuedCount == 0)
    }

    @Test("An idle background slot is never given an interactive request")
    func interactiveNeverOnBackgroundSlot() {
        let t0 = ContinuousClock.now
        var scheduler = PDFWorkScheduler(slots: 1, backgroundSlots: 2, maximumQueuedPerKey: 8)
        #expect(scheduler.submitted(1, key: "a", now: t0) == [.start(1, slot: 0)])
        #expect(scheduler.submitted(2, key: "b", now: t0) == [])
        #expect(scheduler.submitted(3, key: "b", priority: .background, now: t0) == [.start(3, slot: 1)])
        #expect(scheduler.submitted(4, key: "c", priority: .background, now: t0) == [.start(4, slot: 2)])
        #expect(scheduler.finished(slot: 2, key: "c", now: t0) == [])
        #expect(scheduler.finished(slot: 0, key: "a", now: t0) == [.start(2, slot: 0)])
    }

    @Test("Without a background slot a background request is refused at once, never left waiting")
    func noBackgroundSlot() {
        let t0 = ContinuousClock.now
        var scheduler = PDFWorkScheduler(slots: 2, maximumQueuedPerKey: 8)
        #expect(scheduler.submitted(1, key: "a", priority: .background, now: t0) == [.rejectQueueFull(1)])
        #expect(scheduler.backgroundQueuedCount == 0)
        #expect(scheduler.submitted(2, key: "a", now: t0) == [.start(2, slot: 0)])
    }

    @Test("Background runs count towards neither a document's limit nor its heaviness; a waiting one is withdrawn")
    func backgroundOutsideFairness() {
        let t0 = ContinuousClock.now
        var scheduler = PDFWorkScheduler(slots: 1, backgroundSlots: 3, maximumQueuedPerKey: 8, slowRun: .seconds(1))
        #expect(scheduler.submitted(1, key: "a", priority: .background, now: t0) == [.start(1, slot: 1)])
        #expect(scheduler.submitted(2, key: "a", priority: .background, now: t0) == [.start(2, slot: 2)])
        // Slow background runs do not make "a" heavy.
        #expect(scheduler.finished(slot: 1, key: "a", now: t0 + .seconds(5)) == [])
        #expect(!scheduler.isHeavy("a", at: t0 + .seconds(5)))
        #expect(scheduler.submitted(3, key: "a", priority: .background, now: t0) == [.start(3, slot: 1)])
        #expect(scheduler.submitted(4, key: "a", priority: .background, now: t0) == [.start(4, slot: 3)])
        #expect(scheduler.submitted(6, key: "a", priority: .background, now: t0) == [])
        let withdrawn = scheduler.withdrawn(6)
        let again = scheduler.withdrawn(6)
        #expect(withdrawn && !again)
        // Three of "a"'s background requests run; its interactive one is not held to "one per document" by them.
        #expect(scheduler.submitted(5, key: "a", now: t0) == [.start(5, slot: 0)])
        #expect(scheduler.runningCount == 1)
        #expect(scheduler.submitted(7, key: "b", priority: .background, now: t0) == [])
        #expect(scheduler.submitted(7, key: "b", priority: .background, now: t0) == [.rejectQueueFull(7)])  // twice
    }

    @Test("The pool runs background requests in workers of their own at nice 19 and interactive ones at nice 0")
    func backgroundWorkersRunAtIdlePriority() async throws {
        let pool = PDFWorkerPool(
            settings: .init(
                executable: PDFWorkerPool.defaultExecutable(), workers: 1, backgroundWorkers: 1,
                deadline: .seconds(10)),
            metrics: StoreMetrics(), logger: Logger(label: "quire.test"))
        defer { pool.shutdown() }
        let pdf = PDFWorkPayload(try Fixture.data("one-page.pdf"))
        let request = PDFWorkerRequest(operation: .text, pageIndex: 0)
        let background = try await pool.run(request, pdf: pdf, key: "a", priority: .background)
        #expect(String(decoding: background, as: UTF8.self).contains("Hello from page one."))
        let backgroundWorkers = pool.workerProcessIDs
        try #require(backgroundWorkers.count == 1)
        #expect(CQuire_schedulingPolicy(backgroundWorkers[0]) == SCHED_OTHER_POLICY)
        #expect(niceness(of: backgroundWorkers[0]) == 19)
        let interactive = try await pool.run(request, pdf: pdf, key: "a")
        #expect(String(decoding: interactive, as: UTF8.self).contains("Hello from page one."))
        let interactiveWorkers = pool.workerProcessIDs.filter { !backgroundWorkers.contains($0) }
        try #require(interactiveWorkers.count == 1)
        #expect(CQuire_schedulingPolicy(interactiveWorkers[0]) == SCHED_OTHER_POLICY)
        #expect(niceness(of: interactiveWorkers[0]) == 0)
        #expect(pool.occupancy.total == 1)
    }

    @Test("A background worker extracts a batch of pages on several threads, exactly the pages' texts one by one")
    func batchOfTexts() async throws {
        let pool = PDFWorkerPool(
            settings: .init(
                executable: PDFWorkerPool.defaultExecutable(), workers: 1, backgroundWorkers: 1,
                backgroundTextThreads: 3, deadline: .seconds(10)),
            metrics: StoreMetrics(), logger: Logger(label: "quire.test"))
        defer { pool.shutdown() }
        let pdf = PDFWorkPayload(try Fixture.data("hundred-pages.pdf"))
        var single: [String] = []
        for page in 40..<72 {
            let answer = try await pool.run(PDFWorkerRequest(operation: .text, pageIndex: UInt32(page)), pdf: pdf, key: "a")
            single.append(String(decoding: answer, as: UTF8.self))
        }
        let interactiveWorkers = pool.workerProcessIDs
        for _ in 0..<2 {  // the second time on the instances the first one opened
            let answer = try await pool.run(
                PDFWorkerRequest(operation: .texts, pageIndex: 40, pageCount: 32), pdf: pdf, key: "a",
                priority: .background)
            #expect(try PDFWorkerTexts.decode(Array(answer)) == single)
        }
        #expect(single[0].hasPrefix("Page 41 of 100"))
        let background = try #require(pool.workerProcessIDs.first { !interactiveWorkers.contains($0) })
        let commandLine = try String(decoding: Data(contentsOf: URL(fileURLWithPath: "/proc/\(background)/cmdline")), as: UTF8.self)
        #expect(commandLine.split(separator: "\0").joined(separator: " ").contains("--text-threads 3"))
        // A batch that runs past the last page is refused as such, never cut short.
        await #expect {
            try await pool.run(
                PDFWorkerRequest(operation: .texts, pageIndex: 90, pageCount: 11), pdf: pdf, key: "a",
                priority: .background)
        } throws: { error in
            guard case .refused(let reply) = error as? PDFWorkError else { return false }
            return reply.status == .pageOutOfRange
        }
    }
}

/// Linux's SCHED_OTHER policy number (sched.h).
private let SCHED_OTHER_POLICY: Int32 = 0

/// The nice value of process `pid` (its main thread), read with getpriority; nil when it cannot be read.
private func niceness(of pid: pid_t) -> Int32? {
    errno = 0
    let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid))
    return value == -1 && errno != 0 ? nil : value
}
