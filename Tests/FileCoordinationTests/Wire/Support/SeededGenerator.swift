/// A deterministic random number generator (SplitMix64), so that every randomized test replays exactly.
struct SeededGenerator: RandomNumberGenerator {
    /// The generator's state.
    private var state: UInt64

    /// Makes a generator that produces the same sequence for the same seed.
    init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// `count` random bytes.
    mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...UInt8.max, using: &self) }
    }
}
