import CoordinationArbiter
import Testing

/// A quick measurement of the uncontended path (printed, not asserted: timings depend on the machine and on
/// the build configuration; run `swift test -c release --filter Throughput` for the number that matters).
@Suite struct ThroughputTests {
    /// Requests and ends accesses of fresh paths while other clients hold claims and presenters elsewhere.
    @Test func uncontendedRequestGrantEndCycles() {
        var arbiter = Arbiter()
        let now = Instant(nanoseconds: 0)
        // Background: 1000 presenters and 200 granted readers on other files of the same tree.
        for index in 0..<1000 {
            _ = arbiter.presenterRegistered(
                PresenterID(UInt64(index)), client: ClientID(UInt64(index % 7)), purpose: PurposeID("p\(index)"),
                path: ItemPath("/home/user/presented/doc-\(index).pdf"))
        }
        for index in 0..<200 {
            _ = arbiter.accessRequested(
                RequestID(UInt64(1_000_000 + index)), client: ClientID(9), purpose: PurposeID("holder"),
                intents: [.reading(ItemPath("/home/user/held/doc-\(index).pdf"))], now: now)
        }
        let paths = (0..<64).map { ItemPath("/home/user/Documents/work/report-\($0).pdf") }
        let purpose = PurposeID("8C1A4E0B-2B6E-4C8E-9E0F-6B7B2F1D3A55")
        let client = ClientID(1)
        #if DEBUG
            let cycles = 2_000
        #else
            let cycles = 100_000
        #endif
        let rounds = 5
        var granted = 0
        var best = Duration.seconds(1_000)
        let clock = ContinuousClock()
        for round in 0..<rounds {
            let elapsed = clock.measure {
                for index in 0..<cycles {
                    let request = RequestID(UInt64(round * cycles + index))
                    let path = paths[index % paths.count]
                    let intent: AccessIntent = index % 2 == 0 ? .reading(path) : .writing(path)
                    let actions = arbiter.accessRequested(
                        request, client: client, purpose: purpose, intents: [intent], now: now)
                    if case .grant = actions.first { granted += 1 }
                    _ = arbiter.accessEnded(request, from: client)
                }
            }
            best = min(best, elapsed)
        }
        let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) * 1e-18
        let events = Double(cycles * 2)
        print(
            "arbiter throughput: \(Int(events / seconds)) events/s, \(Int(seconds / Double(cycles) * 1e9)) ns per "
                + "uncontended request+grant+end cycle (best of \(rounds) x \(cycles) cycles, 1000 presenters, "
                + "200 held claims)")
        #expect(granted == cycles * rounds)
        #expect(arbiter.snapshot().claims.count == 200)
    }
}
