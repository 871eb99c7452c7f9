import CoordinationArbiter
import Testing

@testable import FileCoordination

/// The handshake's version negotiation (what the host answers to each `hello`) and what each version carries.
@Suite("Version negotiation (pure)")
struct VersionNegotiationTests {
    static let host = VersionNegotiation(supported: 2...3)

    @Test("a client of the same range is welcomed at the highest version both speak")
    func sameVersion() {
        #expect(Self.host.answer(version: 3, lowestVersion: 2) == .agreed(3))
        #expect(
            VersionNegotiation.current.answer(version: WireProtocol.version, lowestVersion: nil)
                == .agreed(WireProtocol.version))
        #expect(VersionNegotiation.current.supported == WireProtocol.oldestVersion...WireProtocol.version)
    }

    @Test("a newer client is welcomed at the host's newest version; a newer host at the client's")
    func adjacentVersions() {
        #expect(Self.host.answer(version: 4, lowestVersion: 3) == .agreed(3))
        #expect(Self.host.answer(version: 4, lowestVersion: 2) == .agreed(3))
        // A client from before negotiation offers its version only (no trailing field).
        #expect(Self.host.answer(version: 2, lowestVersion: nil) == .agreed(2))
        #expect(Self.host.answer(version: 3, lowestVersion: nil) == .agreed(3))
        let newerHost = VersionNegotiation(supported: 3...4)
        #expect(newerHost.answer(version: 3, lowestVersion: 2) == .agreed(3))
        #expect(newerHost.answer(version: 3, lowestVersion: nil) == .agreed(3))
    }

    @Test("ranges that do not overlap are refused with both ranges named")
    func disjointRanges() {
        guard case .refused(let newer) = Self.host.answer(version: 5, lowestVersion: 4) else {
            Issue.record("a client of 4…5 was welcomed by a host of 2…3")
            return
        }
        #expect(newer.contains("versions 2…3") && newer.contains("this process speaks versions 4…5"))
        guard case .refused(let older) = Self.host.answer(version: 1, lowestVersion: nil) else {
            Issue.record("a client of 1 was welcomed by a host of 2…3")
            return
        }
        #expect(older.contains("versions 2…3") && older.contains("this process speaks version 1;"))
        guard case .refused(let empty) = Self.host.answer(version: 2, lowestVersion: 3) else {
            Issue.record("a hello offering no version was welcomed")
            return
        }
        #expect(empty.contains("no protocol version"))
    }

    @Test("an offer accepts a welcome only at a version it offered")
    func offers() {
        let offer = Self.host.offer()
        #expect(offer == VersionNegotiation.Offer(newest: 3, lowest: 2))
        #expect(offer.hello(pid: 7, commandLine: "q") == .hello(version: 3, pid: 7, commandLine: "q", lowestVersion: 2))
        #expect(offer.accepts(welcome: 2) && offer.accepts(welcome: 3))
        #expect(!offer.accepts(welcome: 1) && !offer.accepts(welcome: 4))
        let legacy = Self.host.offer(legacy: true)
        #expect(legacy.hello(pid: 7, commandLine: "q") == .hello(version: 3, pid: 7, commandLine: "q"))
        #expect(legacy.accepts(welcome: 3) && !legacy.accepts(welcome: 2))
        // A build that speaks 4 too still names 3 in the old layout: builds from before negotiation speak only 3.
        let newer = VersionNegotiation(supported: 2...4).offer(legacy: true)
        #expect(newer.hello(pid: 7, commandLine: "q") == .hello(version: 3, pid: 7, commandLine: "q"))
    }

    @Test(
        "versions 2-4 lack frames added later (notices, the hand-over board, package extensions); the rest is in all"
    )
    func framesOfEachVersion() {
        let notice = VersionNotice(.gained, version: [1])
        func delivery(_ message: PresenterMessage) -> WireFrame {
            .deliver(
                PresenterDelivery(
                    client: ClientID(1), presenter: PresenterID(1), id: MessageID(1), message: message,
                    request: RequestID(1)))
        }
        let added: [WireFrame] = [
            .versionsChanged("/f", notice), delivery(.versionsChanged(notice)),
            delivery(.subitemVersionsChanged("/d/f", notice)),
        ]
        for frame in added {
            #expect(!VersionNegotiation.carries(frame, at: 2), "\(frame)")
            #expect(VersionNegotiation.carries(frame, at: 3), "\(frame)")
        }
        for frame in SampleFrames.frames where !added.contains(frame) {
            let isNotice: Bool
            switch frame {
            case .handOverBoard:
                #expect(!VersionNegotiation.carries(frame, at: 2) && !VersionNegotiation.carries(frame, at: 3))
                #expect(VersionNegotiation.carries(frame, at: 4))
                continue
            case .packageExtensions:
                #expect(!VersionNegotiation.carries(frame, at: 4) && VersionNegotiation.carries(frame, at: 5))
                continue
            case .versionsChanged: isNotice = true
            case .deliver(let delivery):
                switch delivery.message {
                case .versionsChanged, .subitemVersionsChanged: isNotice = true
                default: isNotice = false
                }
            default: isNotice = false
            }
            #expect(VersionNegotiation.carries(frame, at: 2) == !isNotice, "\(frame)")
            #expect(VersionNegotiation.carries(frame, at: 3), "\(frame)")
            #expect(VersionNegotiation.carries(frame, at: 4), "\(frame)")
        }
    }
}
