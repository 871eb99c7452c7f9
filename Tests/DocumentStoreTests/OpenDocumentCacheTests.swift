#if DEBUG  // @testable needs a debug build (or -enable-testing)
import QuireTestSupport
import Testing

@testable import StoreCore

/// The open-document cache against a model (an array in recency order), at random.
@Suite("Open-document cache")
struct OpenDocumentCacheTests {
    static func id(_ number: Int) -> DocumentID { DocumentID(rawValue: "d\(number)")! }

    @Test("inserts, touches, removals and evictions agree with an array in recency order", arguments: [UInt64(1), 2, 3])
    func againstAModel(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var cache = OpenDocumentCache<Int>()
        var model: [(id: DocumentID, value: Int)] = []  // least recently used first
        // A document whose value is a multiple of 5 may not close (unsaved edits, a conflict).
        func mayClose(_ value: Int) -> Bool { value % 5 != 0 }
        for step in 0..<20_000 {
            let number = Int.random(in: 0..<40, using: &random)
            let id = Self.id(number)
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                cache.insert(step, for: id)
                model.removeAll { $0.id == id }
                model.append((id, step))
                let bound = 12
                let evicted = cache.evict(downTo: bound, keeping: id, mayClose: mayClose)
                var expected: [Int] = []
                var index = 0
                while model.count > bound, index < model.count {
                    if model[index].id != id, mayClose(model[index].value) {
                        expected.append(model.remove(at: index).value)
                    } else {
                        index += 1
                    }
                }
                #expect(evicted == expected)
            case 1:
                let touched = cache.touch(id)
                let index = model.firstIndex { $0.id == id }
                #expect(touched == index.map { model[$0].value })
                if let index { model.append(model.remove(at: index)) }
            case 2:
                let removed = cache.remove(id)
                let index = model.firstIndex { $0.id == id }
                #expect(removed == index.map { model[$0].value })
                if let index { model.remove(at: index) }
            default:
                #expect(cache[id] == model.first { $0.id == id }?.value)
            }
            #expect(cache.count == model.count)
        }
        #expect(cache.idsByRecency == model.map(\.id))
        #expect(cache.removeAll().sorted() == model.map(\.value).sorted())
        #expect(cache.isEmpty && cache.idsByRecency.isEmpty)
    }
}
#endif
