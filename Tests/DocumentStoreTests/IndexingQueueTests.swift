import Synchronization
import Testing

@testable import StoreCore

/// The search index's queue of documents to read again, as a pure machine (instants are plain numbers).
@Suite("Indexing queue")
struct IndexingQueueTests {
    @Test("Documents wait once however often they change, are taken in order, at most the concurrency at once")
    func orderAndBound() {
        var queue = IndexingQueue<Int>(concurrency: 2)
        queue.changed("a", now: 1)
        queue.changed("b", now: 2)
        queue.changed("a", now: 3)
        queue.changed("c", now: 4)
        #expect(queue.waitingCount == 3)
        #expect(queue.oldestWait == 1)
        #expect(queue.next() == "a")
        #expect(queue.next() == "b")
        #expect(queue.next() == nil)  // two run
        #expect(queue.oldestWait == 4)
        queue.finished("a")
        #expect(queue.next() == "c")
        #expect(queue.next() == nil)
    }

    @Test("A document that changes while it is indexed waits again when that indexing ends, never twice at once")
    func changedWhileRunning() {
        var queue = IndexingQueue<Int>(concurrency: 4)
        queue.changed("a", now: 1)
        #expect(queue.next() == "a")
        queue.changed("a", now: 5)
        queue.changed("a", now: 6)
        #expect(queue.next() == nil)  // "a" runs: its change waits for the end
        #expect(queue.waitingCount == 1)
        #expect(queue.oldestWait == 5)
        queue.finished("a")
        #expect(queue.next() == "a")
        queue.finished("a")
        queue.finished("a")  // already ended: nothing
        #expect(queue.next() == nil)
        #expect(queue.waitingCount == 0)
    }

    @Test("Thousands of documents pass through with bounded bookkeeping")
    func many() {
        var queue = IndexingQueue<Int>(concurrency: 3)
        for number in 0..<5000 { queue.changed("d\(number)", now: number) }
        var taken: [String] = []
        while let id = queue.next() {
            taken.append(id)
            queue.finished(id)
        }
        #expect(taken == (0..<5000).map { "d\($0)" })
        #expect(queue.waitingCount == 0)
    }

    @Test("The oldest wait costs the same with a thousand documents waiting as with a hundred thousand (comparisons counted)")
    func oldestWaitIndependentOfBacklog() {
        func comparisons(waiting count: Int) -> Int {
            var queue = IndexingQueue<CountedInstant>(concurrency: 3)
            for number in 0..<count { queue.changed("d\(number)", now: CountedInstant(value: number + 10)) }
            // Two documents change while they are indexed; one of them has finished and waits again, ahead.
            #expect(queue.next() == "d0")
            #expect(queue.next() == "d1")
            queue.changed("d0", now: CountedInstant(value: 1))
            queue.changed("d1", now: CountedInstant(value: 2))
            queue.finished("d0")
            CountedInstant.comparisons.withLock { $0 = 0 }
            #expect(queue.oldestWait?.value == 1)
            let counted = CountedInstant.comparisons.withLock { $0 }
            #expect(queue.next() == "d0")  // the document that waited longest goes first
            return counted
        }
        let small = comparisons(waiting: 1_000)
        let large = comparisons(waiting: 100_000)
        #expect(small == large)
        #expect(large <= 4)
    }
}

/// An instant that counts how often two of them are compared.
private struct CountedInstant: Comparable, Sendable {
    static let comparisons = Mutex(0)
    let value: Int

    static func < (lhs: CountedInstant, rhs: CountedInstant) -> Bool {
        comparisons.withLock { $0 += 1 }
        return lhs.value < rhs.value
    }
}
