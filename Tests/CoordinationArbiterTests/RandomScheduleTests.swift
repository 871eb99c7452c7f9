import CoordinationArbiter
import Testing

/// Thousands of seeded random schedules; each failure names its seed, and `replay` reruns one seed.
@Suite struct RandomScheduleTests {
    /// Set to a seed printed by a failure to rerun only that schedule.
    static let replaySeed: UInt64? = nil
    static let baseSeed: UInt64 = 0x5155_4952_4541_5242  // "QUIREARB"
    static let schedules = 2400
    static let steps = 50
    /// The schedules run as this many test cases, so that they use both cores.
    static let chunks = 4

    @Test(arguments: 0..<Self.chunks)
    func randomSchedulesKeepEveryInvariant(chunk: Int) {
        let perChunk = UInt64(Self.schedules / Self.chunks)
        let indices = (UInt64(chunk) * perChunk)..<(UInt64(chunk + 1) * perChunk)
        let seeds = Self.replaySeed.map { chunk == 0 ? [$0] : [] } ?? indices.map { Self.baseSeed &+ $0 &* 0x9E37_79B9 }
        var grants = 0
        var messages = 0
        var movesWithWaiters = 0
        for seed in seeds {
            var schedule = RandomSchedule(seed: seed)
            let failures = schedule.run(steps: Self.steps)
            if !failures.isEmpty {
                var replay = RandomSchedule(seed: seed, tracing: true)
                let traced = replay.run(steps: Self.steps)
                let report: String =
                    "schedule with seed \(seed) failed (set RandomScheduleTests.replaySeed = \(seed) to rerun it):\n"
                    + (traced.isEmpty ? failures : traced).prefix(60).joined(separator: "\n")
                Issue.record(Comment(rawValue: report))
                return
            }
            grants += schedule.h.model.grantLog.count
            messages += schedule.h.model.sentOrder.count
            movesWithWaiters += schedule.h.model.movesWithWaiters
        }
        print(
            "random schedules, chunk \(chunk): \(seeds.count) schedules, \(grants) grants, \(messages) presenter "
                + "messages, \(movesWithWaiters) moves that waiting intents followed")
        #expect(grants >= seeds.count)
        // The moves must have had waiters, or the claims gained in moves would go untested.
        #expect(Self.replaySeed != nil || movesWithWaiters >= seeds.count / 4)
    }
}
