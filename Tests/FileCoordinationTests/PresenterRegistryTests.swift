#if DEBUG  // @testable needs a debug build (or -enable-testing)
// The registry is internal: these tests need a build for testing (debug; `swift test -c release` skips them).
#if DEBUG
    import CoordinationArbiter
    @testable import FileCoordination
    import Testing

    /// Reacquirer slots: the two halves meet in either order, and a half whose partner never comes does not
    /// outlive its presenter's registration.
    @Suite("Presenter registry")
    struct PresenterRegistryTests {
        @Test("a reacquirer is handed over whichever half comes first, and no slot is left")
        func halvesMeetInEitherOrder() throws {
            let registry = PresenterRegistry()
            let presenter = RecordingPresenter(url: nil)
            let id = try #require(registry.add(presenter, path: nil)).id
            let ran = Locked(0)
            let reacquirer: @Sendable () -> Void = { ran.withLock { $0 += 1 } }

            #expect(registry.reacquirerHandedBack(id, MessageID(1), reacquirer) == nil)
            if case .some(let handed) = registry.reacquirerWanted(id, MessageID(1)) { handed?() }
            #expect(registry.reacquirerWanted(id, MessageID(2)) == nil)
            if case .some(let handed) = registry.reacquirerHandedBack(id, MessageID(2), reacquirer) { handed?() }
            #expect(ran.value == 2)
            #expect(registry.reacquirerSlotCount == 0)
        }

        @Test("removing a presenter drops its slots, and none is kept for it afterwards")
        func removedPresenterKeepsNoSlot() throws {
            let registry = PresenterRegistry()
            let removed = RecordingPresenter(url: nil)
            let kept = RecordingPresenter(url: nil)
            let removedID = try #require(registry.add(removed, path: nil)).id
            let keptID = try #require(registry.add(kept, path: nil)).id
            // Handed back, but removed before its reacquire; asked for, but never handed back (a relinquish
            // left unanswered after a cancel or a timeout).
            _ = registry.reacquirerHandedBack(removedID, MessageID(1), {})
            _ = registry.reacquirerWanted(removedID, MessageID(2))
            _ = registry.reacquirerWanted(keptID, MessageID(3))
            #expect(registry.reacquirerSlotCount == 3)
            #expect(registry.remove(removed) == removedID)
            #expect(registry.reacquirerSlotCount == 1)
            // Late halves for the removed presenter are dropped.
            #expect(registry.reacquirerHandedBack(removedID, MessageID(2), {}) == nil)
            #expect(registry.reacquirerWanted(removedID, MessageID(4)) == nil)
            #expect(registry.reacquirerSlotCount == 1)
            #expect(registry.remove(kept) == keptID)
            #expect(registry.reacquirerSlotCount == 0)
        }

        @Test("100,000 presenters added and removed at random stay in registration order, and gone ones leave no slot")
        func manyPresentersAgainstAModel() throws {
            let registry = PresenterRegistry()
            var random = SeededGenerator(seed: 28)
            var live: [RecordingPresenter] = []  // the model: registration order
            for round in 0..<4 {
                for _ in 0..<25_000 {
                    let presenter = RecordingPresenter(url: nil)
                    #expect(registry.add(presenter, path: nil) != nil)
                    live.append(presenter)
                }
                // Remove a random third, in random order.
                var removing = Set<Int>()
                while removing.count < live.count / 3 { removing.insert(Int.random(in: 0..<live.count, using: &random)) }
                for index in removing.shuffled(using: &random) { #expect(registry.remove(live[index]) != nil) }
                live = live.enumerated().filter { !removing.contains($0.offset) }.map(\.element)
                #expect(registry.presenters.map(ObjectIdentifier.init) == live.map(ObjectIdentifier.init), "round \(round)")
            }
            #expect(registry.remove(RecordingPresenter(url: nil)) == nil)
            for presenter in live { #expect(registry.remove(presenter) != nil) }
            #expect(registry.presenters.isEmpty)
            // Presenters that come and go (a store's dormant documents) leave no slot behind for long.
            // (In batches held together, so that a new presenter does not simply reuse a freed one's address.)
            live.removeAll()
            for _ in 0..<130 {
                let batch = (0..<1_000).map { _ in RecordingPresenter(url: nil) }
                for presenter in batch { _ = registry.add(presenter, path: nil) }
                for presenter in batch { _ = registry.remove(presenter) }
            }
            // Bounded by the most presenters alive at once (about 60,000 here), never by how many ever came and went.
            #expect(registry.purposeSlotCount <= 2 * 61_000)
        }
    }
#endif
#endif
