import QuireSystem
import QuireTestSupport
import Testing

@Suite("Adaptive poll window")
struct AdaptivePollWindowTests {
    static let maximum = Duration.microseconds(1600)

    @Test("it starts at its maximum, and a poll that catches its event on a processor of its own keeps it")
    func startsAtMaximum() {
        var window = AdaptivePollWindow(maximum: Self.maximum)
        #expect(window.current == Self.maximum)
        for _ in 0..<100 {
            window.record(caught: true, after: .microseconds(300), processorTime: .microseconds(290))
        }
        #expect(window.current == Self.maximum)
    }

    @Test("events that come long after every poll shrink it to nothing: an idle wait polls no more")
    func wastedPollsShrinkToNothing() {
        var window = AdaptivePollWindow(maximum: Self.maximum)
        var windows: [Duration] = []
        for _ in 0..<10 {
            window.record(caught: false, after: .milliseconds(5), processorTime: window.current)
            windows.append(window.current)
        }
        #expect(Array(windows.prefix(5)) == [800, 400, 200, 100, 50].map { Duration.microseconds($0) })
        #expect(windows[5] == .zero)  // 25 µs is no more than a sixty-fourth of the maximum
        #expect(windows.dropFirst(5).allSatisfy { $0 == .zero })
    }

    @Test("a poll that got less than half a processor (others wanted it) cuts it to a quarter, even when it caught its event")
    func contendedPollsStop() {
        var window = AdaptivePollWindow(maximum: Self.maximum)
        window.record(caught: true, after: .microseconds(1500), processorTime: .microseconds(500))
        #expect(window.current == .microseconds(400))
        window.record(caught: false, after: .microseconds(900), processorTime: .microseconds(100))
        #expect(window.current == .microseconds(100))
        window.record(caught: false, after: .microseconds(900), processorTime: .microseconds(20))
        #expect(window.current == .zero)
        // Half a processor or more is a poll of its own.
        var other = AdaptivePollWindow(maximum: Self.maximum)
        other.record(caught: true, after: .microseconds(1000), processorTime: .microseconds(500))
        #expect(other.current == Self.maximum)
    }

    @Test("an event just after a poll ended grows it back, from an eighth of the maximum, up to the maximum")
    func nearMissesGrowItBack() {
        var window = AdaptivePollWindow(maximum: Self.maximum)
        for _ in 0..<10 { window.record(caught: false, after: .seconds(1), processorTime: window.current) }
        #expect(window.current == .zero)
        var windows: [Duration] = []
        for _ in 0..<5 {
            window.record(caught: false, after: .microseconds(1500), processorTime: window.current)
            windows.append(window.current)
        }
        #expect(windows == [200, 400, 800, 1600, 1600].map { Duration.microseconds($0) })
    }

    @Test("it follows a random mix of outcomes within its bounds", arguments: [1, 2, 3] as [UInt64])
    func staysWithinBounds(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var window = AdaptivePollWindow(maximum: Self.maximum)
        for _ in 0..<10_000 {
            let before = window.current
            let waited = Duration.microseconds(Int64(random.next() % 4000))
            let caught = before > .zero && waited <= before && random.next() % 2 == 0
            let polled = caught ? waited : before
            let share = Int64(random.next() % 101)
            window.record(caught: caught, after: waited, processorTime: polled * Int(share) / 100)
            if caught && share >= 50 { #expect(window.current == before) }
            if !caught && waited > Self.maximum { #expect(window.current <= before) }
            #expect(window.current >= .zero && window.current <= Self.maximum)
        }
    }

    @Test("a maximum of zero never polls")
    func zeroNeverPolls() {
        var window = AdaptivePollWindow(maximum: .zero)
        window.record(caught: false, after: .zero)
        window.record(caught: false, after: .microseconds(10))
        #expect(window.current == .zero)
    }
}
