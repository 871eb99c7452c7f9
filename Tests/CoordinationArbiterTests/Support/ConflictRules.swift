import CoordinationArbiter

/// The waiting rules written down again for the tests, independently of the arbiter's claim table.
///
/// Components ending in `.bundle` are file packages. Two intents conflict if their claimed paths (the item,
/// or its outermost package) are equal and one writes, or one claimed path lies inside the other and the
/// outer intent is a `.forDeleting`, `.forMoving` or `.forReplacing` write.
enum ConflictRules {
    static func claimedComponents(_ path: ItemPath) -> [String] {
        let components = path.components
        if let package = components.firstIndex(where: { $0.hasSuffix(".bundle") }) {
            return Array(components[...package])
        }
        return components
    }

    static func isWrite(_ intent: AccessIntent) -> Bool {
        if case .writing = intent.access { return true }
        return false
    }

    static func excludesContents(_ intent: AccessIntent) -> Bool {
        guard case .writing(let options) = intent.access else { return false }
        return options.contains(.forDeleting) || options.contains(.forMoving) || options.contains(.forReplacing)
    }

    static func intentsConflict(_ a: AccessIntent, _ b: AccessIntent) -> Bool {
        let left = claimedComponents(a.path)
        let right = claimedComponents(b.path)
        if left == right { return isWrite(a) || isWrite(b) }
        if left.count < right.count && Array(right.prefix(left.count)) == left { return excludesContents(a) }
        if right.count < left.count && Array(left.prefix(right.count)) == right { return excludesContents(b) }
        return false
    }

    static func requestsConflict(
        _ purposeA: PurposeID, _ intentsA: [AccessIntent], _ purposeB: PurposeID, _ intentsB: [AccessIntent]
    ) -> Bool {
        guard purposeA != purposeB else { return false }
        return intentsA.contains { a in intentsB.contains { b in intentsConflict(a, b) } }
    }

    /// Only reads.
    static func readsOnly(_ intents: [AccessIntent]) -> Bool { !intents.contains(where: isWrite) }
}

/// SplitMix64: a tiny, fast, seedable generator, so that every schedule can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
