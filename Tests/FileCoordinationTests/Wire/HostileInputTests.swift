#if DEBUG  // @testable needs a debug build (or -enable-testing)
import CoordinationArbiter
import Testing

@testable import FileCoordination

/// Whatever a peer sends, decoding ends in a frame, nil or a ``WireError``: never a trap, never a big allocation.
@Suite struct HostileInputTests {
    /// Random byte strings (seeded): most fail on their length field.
    @Test func randomBytes() {
        var random = SeededGenerator(seed: 1)
        var outcomes = Outcomes()
        for _ in 0..<5_000 {
            outcomes.add(WireTesting.decodeAll(random.bytes(count: Int.random(in: 0...256, using: &random))))
        }
        #expect(outcomes.failures > 0)
    }

    /// Random payloads behind a valid length and a valid type byte, so that every payload reader is exercised.
    @Test func randomPayloadsOfEveryType() {
        var random = SeededGenerator(seed: 2)
        var outcomes = Outcomes()
        for _ in 0..<20_000 {
            let type = WireFrameType.allCases.randomElement(using: &random)!
            let payload = random.bytes(count: Int.random(in: 0...96, using: &random))
            outcomes.add(WireTesting.decodeAll(WireTesting.frame(type: type.rawValue, payload: payload)))
        }
        #expect(outcomes.failures > 0)
        #expect(outcomes.frames > 0)
    }

    /// Valid frames with random bytes changed (seeded). Whatever decodes re-encodes to a frame that decodes to
    /// itself.
    @Test func mutatedFrames() throws {
        var random = SeededGenerator(seed: 3)
        var outcomes = Outcomes()
        for frame in SampleFrames.frames {
            let original = WireTesting.encode(frame)
            for _ in 0..<300 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    // Mostly leave the length field alone, so that the payload is read.
                    let index = Int.random(in: (Bool.random(using: &random) ? 0 : 4)..<bytes.count, using: &random)
                    bytes[index] = UInt8.random(in: 0...255, using: &random)
                }
                let outcome = WireTesting.decodeAll(bytes)
                outcomes.add(outcome)
                for decoded in (try? outcome.get()) ?? [] {
                    #expect(try WireTesting.decodeAll(WireEncoder.encode(decoded)).get() == [decoded])
                }
            }
        }
        #expect(outcomes.failures > 0)
        #expect(outcomes.frames > 0)
    }

    /// Every proper prefix of every sample's payload is a truncated frame of that type.
    @Test func truncatedFrames() {
        for frame in SampleFrames.frames {
            let payload = Array(WireTesting.encode(frame).dropFirst(5))
            for length in 0..<payload.count {
                let bytes = WireTesting.frame(type: frame.type.rawValue, payload: Array(payload.prefix(length)))
                #expect(
                    WireTesting.error(decoding: bytes) == .truncatedPayload(frame.type), "\(frame) cut at \(length)")
            }
        }
        #expect(WireTesting.error(decoding: [0, 0, 0, 0]) == .truncatedPayload(nil))
    }

    /// Every sample with a byte too many in its frame reports the extra byte.
    @Test func trailingBytes() {
        for frame in SampleFrames.frames {
            let payload = Array(WireTesting.encode(frame).dropFirst(5)) + [0]
            let bytes = WireTesting.frame(type: frame.type.rawValue, payload: payload)
            #expect(WireTesting.error(decoding: bytes) == .trailingBytes(frame.type, count: 1))
        }
    }

    /// A length over the limit fails as soon as its four bytes arrive; the decoder stays failed.
    @Test func hugeLength() throws {
        for length in [UInt32.max, UInt32(WireProtocol.maximumFrameLength + 1)] {
            var decoder = WireDecoder()
            decoder.append(WireTesting.le(length))
            let expected = WireError.frameTooLarge(length: Int(length))
            #expect(throws: expected) { try decoder.next() }
            decoder.append(WireTesting.encode(.accessEnded(RequestID(1))))
            #expect(decoder.bufferedByteCount == 0)
            #expect(throws: expected) { try decoder.next() }
        }
    }

    /// Counts far beyond the bytes present fail before anything is reserved for them.
    @Test func hugeCounts() {
        let hugeCount = WireTesting.le(UInt32.max)
        let request = WireTesting.le(UInt64(1))
        let cases: [(WireFrameType, [UInt8])] = [
            (.grant, request + hugeCount),
            (.accessRequested, request + WireTesting.string([0x70]) + hugeCount),
            (.snapshotResponse, request + hugeCount),
            (.snapshotResponse, request + WireTesting.le(UInt32(0)) + hugeCount),
            (.refused, hugeCount),
            (.presenterMoved, request + [1] + WireTesting.le(UInt16.max) + hugeCount),
            (.presenterReplied, request + [1] + hugeCount),
            (.fail, request + [1] + WireTesting.le(UInt16(1)) + hugeCount),
        ]
        for (type, payload) in cases {
            let error = WireTesting.error(decoding: WireTesting.frame(type: type.rawValue, payload: payload))
            #expect(error == .truncatedPayload(type), "\(type)")
        }
    }

    /// A version notice larger than the protocol's bound is refused before its bytes are copied.
    @Test func oversizedVersionNotice() throws {
        let path = WireTesting.path([[0x61]])
        let count = UInt32(WireProtocol.maximumVersionLength + 1)
        let frame = WireTesting.frame(
            type: 0x1A, payload: path + [0] + WireTesting.le(count) + Array(repeating: 0, count: Int(count)))
        #expect(WireTesting.error(decoding: frame) == .versionTooLarge(.versionsChanged, count: Int(count)))
        let notice = VersionNotice(.gained, version: Array(repeating: 0, count: Int(count)))
        #expect(throws: WireError.versionTooLarge(.versionsChanged, count: Int(count))) {
            try WireEncoder.encode(.versionsChanged(.root, notice))
        }
    }

    /// Tags with no meaning: optionals, bools and every enum.
    @Test func badTags() {
        let id = WireTesting.le(UInt64(1))
        let path = WireTesting.path([[0x61]])
        let intentTail = WireTesting.le(UInt64(0)) + [0] + WireTesting.le(UInt32(0))
        let cases: [([UInt8], WireError)] = [
            (
                WireTesting.frame(type: 0x11, payload: id + [2]),
                .badEnumTag(.presenterMoved, field: "Optional<ItemPath>", tag: 2)
            ),
            (
                WireTesting.frame(type: 0x10, payload: id + WireTesting.string([]) + [0, 7]),
                .badEnumTag(.presenterRegistered, field: "observesUncoordinatedChanges", tag: 7)
            ),
            (
                WireTesting.frame(type: 0x22, payload: id + id + id + [13] + id),
                .badEnumTag(.deliver, field: "PresenterMessage", tag: 13)
            ),
            (WireTesting.frame(type: 0x21, payload: id + [3]), .badEnumTag(.fail, field: "AccessFailure", tag: 3)),
            (
                WireTesting.frame(type: 0x1A, payload: path + [3] + WireTesting.le(UInt32(0))),
                .badEnumTag(.versionsChanged, field: "VersionNotice.Change", tag: 3)
            ),
            (
                WireTesting.frame(
                    type: 0x13,
                    payload: id + WireTesting.string([]) + WireTesting.le(UInt32(1)) + path + [2] + intentTail
                        + [0, 0, 0]),
                .badEnumTag(.accessRequested, field: "AccessIntent.Access", tag: 2)
            ),
            (
                WireTesting.frame(
                    type: 0x13, payload: id + WireTesting.string([]) + WireTesting.le(UInt32(0)) + [0, 0, 9]),
                .badEnumTag(.accessRequested, field: "reclaim", tag: 9)
            ),
            (
                WireTesting.frame(
                    type: 0x23,
                    payload: id + WireTesting.le(UInt32(0)) + WireTesting.le(UInt32(1)) + path
                        + WireTesting.le(UInt32(1)) + id + id + WireTesting.le(Int32(1)) + WireTesting.string([])
                        + path + [0] + intentTail + id + [3] + WireTesting.le(UInt32(0)) + WireTesting.le(UInt32(0))),
                .badEnumTag(.snapshotResponse, field: "ArbiterSnapshot.Phase", tag: 3)
            ),
            (WireTesting.frame(type: 0x00, payload: []), .unknownFrameType(0x00)),
            (WireTesting.frame(type: 0x04, payload: []), .unknownFrameType(0x04)),
            (WireTesting.frame(type: 0xFF, payload: id), .unknownFrameType(0xFF)),
        ]
        for (bytes, expected) in cases {
            #expect(WireTesting.error(decoding: bytes) == expected)
        }
    }

    /// Strings must be UTF-8 (no stray continuation bytes, overlong forms or surrogates) and path components
    /// non-empty and free of `/`.
    @Test func invalidStringsAndPaths() {
        let id = WireTesting.le(UInt64(1))
        for invalid: [UInt8] in [
            [0xC3, 0x28], [0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
            // Repaired to U+FFFD and "A": as many bytes as the original, so a length check alone would pass it.
            [0xF0, 0x90, 0x80, 0x41],
        ] {
            #expect(
                WireTesting.error(decoding: WireTesting.frame(type: 0x03, payload: WireTesting.string(invalid)))
                    == .invalidUTF8(.refused))
            let pathFrame = WireTesting.frame(type: 0x21, payload: id + [1] + WireTesting.path([[0x61], invalid]))
            #expect(WireTesting.error(decoding: pathFrame) == .invalidUTF8(.fail))
        }
        for component: [UInt8] in [[], [0x2F], [0x61, 0x2F, 0x62]] {
            let bytes = WireTesting.frame(
                type: 0x15, payload: id + WireTesting.path([component]) + WireTesting.path([]))
            #expect(WireTesting.error(decoding: bytes) == .invalidPath(.itemMoved))
        }
    }

    /// Package root depths must ascend within the intent's path (so their count is bounded by its depth).
    @Test func invalidPackageDepths() {
        let prefix =
            WireTesting.le(UInt64(1)) + WireTesting.string([]) + WireTesting.le(UInt32(1))
            + WireTesting.path([[0x61], [0x62]]) + [1] + WireTesting.le(UInt64(0)) + [0]
        let suffix: [UInt8] = [0, 0, 0] + [UInt8](repeating: 0, count: 8)
        for depths: [UInt16] in [[0], [3], [2, 1], [1, 1], [1, 2, 2]] {
            let payload = prefix + WireTesting.le(UInt32(depths.count)) + depths.flatMap(WireTesting.le) + suffix
            let bytes = WireTesting.frame(type: WireFrameType.accessRequested.rawValue, payload: payload)
            #expect(WireTesting.error(decoding: bytes) == .invalidPath(.accessRequested), "\(depths)")
        }
        let valid = prefix + WireTesting.le(UInt32(2)) + [1, 0, 2, 0] + suffix
        #expect(WireTesting.error(decoding: WireTesting.frame(type: 0x13, payload: valid)) == nil)
    }

    /// A valid U+FFFD in a string is kept: it is not mistaken for a repaired sequence.
    @Test func replacementCharacterIsValid() throws {
        let frame = WireFrame.refused(reason: "\u{FFFD} caf\u{E9}")
        #expect(try WireTesting.decodeAll(WireEncoder.encode(frame)).get() == [frame])
    }

    /// A `hello` or `welcome` of any version decodes: the host and the session negotiate, the decoder does not
    /// drop the peer. A `hello` has at most one trailing field (the lowest version); more is still an error.
    @Test func anyVersionDecodes() {
        let base = WireTesting.le(UInt16(1)) + WireTesting.le(Int32(7)) + WireTesting.string([0x71])
        let base3 = WireTesting.le(UInt16(3)) + WireTesting.le(Int32(7)) + WireTesting.string([0x71])
        #expect(
            WireTesting.decodeAll(WireTesting.frame(type: 0x01, payload: base))
                == .success([.hello(version: 1, pid: 7, commandLine: "q")]))
        #expect(
            WireTesting.decodeAll(WireTesting.frame(type: 0x01, payload: base + WireTesting.le(UInt16(9))))
                == .success([.hello(version: 1, pid: 7, commandLine: "q", lowestVersion: 9)]))
        #expect(
            WireTesting.error(decoding: WireTesting.frame(type: 0x01, payload: base + [1, 0, 0]))
                == .trailingBytes(.hello, count: 1))
        // The encoder writes the trailing field only when there is one: the legacy layout is the old one.
        let offering = WireFrame.hello(version: 3, pid: 7, commandLine: "q", lowestVersion: 2)
        #expect(
            WireTesting.encode(offering) == WireTesting.frame(type: 0x01, payload: base3 + WireTesting.le(UInt16(2))))
        #expect(
            WireTesting.encode(.hello(version: 3, pid: 7, commandLine: "q"))
                == WireTesting.frame(type: 0x01, payload: base3))
        #expect(WireTesting.decodeAll(WireTesting.encode(offering)) == .success([offering]))
        let welcome = WireTesting.frame(type: 0x02, payload: WireTesting.le(UInt16(0)) + WireTesting.le(UInt64(1)))
        #expect(WireTesting.decodeAll(welcome) == .success([.welcome(version: 0, clientID: ClientID(1))]))
    }

    /// Errors explain themselves.
    @Test func errorDescriptions() {
        #expect("\(WireError.badEnumTag(.deliver, field: "PresenterMessage", tag: 11))".contains("deliver(0x22)"))
        #expect("\(WireError.unknownFrameType(0xFF))".contains("0xff"))
    }

    /// The hostile corpus runs in a child process whose address space is capped a little above its size: any
    /// allocation driven by a hostile length or count would crash it.
    @Test func hostileInputUnderMemoryLimit() async {
        await #expect(processExitsWith: .success) {
            MemoryLimit.capAddressSpace(headroom: 256 << 20)
            HostileCorpus.decodeAll()
        }
    }

    /// The cap of ``hostileInputUnderMemoryLimit()`` does catch a big allocation.
    @Test func memoryLimitCatchesBigAllocations() async {
        await #expect(processExitsWith: .failure) {
            MemoryLimit.capAddressSpace(headroom: 256 << 20)
            var big = [UInt8]()
            big.reserveCapacity(1 << 30)
            big.append(1)
            print(big.count)
        }
    }
}

/// Counts how decoding attempts ended.
private struct Outcomes {
    /// Attempts that gave frames or nil.
    var frames = 0
    /// Attempts that threw.
    var failures = 0

    /// Records one attempt.
    mutating func add(_ outcome: Result<[WireFrame], WireError>) {
        switch outcome {
        case .success: frames += 1
        case .failure: failures += 1
        }
    }
}
#endif
