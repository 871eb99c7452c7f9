import CoordinationArbiter
import Testing

@testable import FileCoordination

/// The session's side of version negotiation: what it offers, which welcomes it takes, and that a connection
/// agreed at version 2 carries nothing that version lacks, either way.
@Suite("Arbiter session versions (pure)")
struct ArbiterSessionVersionTests {
    typealias Tests = ArbiterSessionTests
    static let notice = VersionNotice(.gained, version: [1, 2])
    static let offer = VersionNegotiation.current.offer()
    static let legacy = VersionNegotiation.current.offer(legacy: true)

    static func delivery(_ message: PresenterMessage, id: UInt64) -> WireFrame {
        .deliver(
            PresenterDelivery(
                client: ClientID(1), presenter: PresenterID(5), id: MessageID(id), message: message,
                request: RequestID(0)))
    }

    @Test("a session offers its whole range, and speaks the version the host welcomes it at")
    func welcomedAtTheOlderVersion() {
        var session = ArbiterSession()
        let register = ClientEvent.presenterRegistered(
            PresenterID(5), purpose: Tests.purpose, path: "/f", observesUncoordinatedChanges: false)
        #expect(session.eventSubmitted(register, now: Tests.at(0)) == [.connect(attempt: 1, offer: Self.offer)])
        #expect(
            Self.offer == VersionNegotiation.Offer(newest: WireProtocol.version, lowest: WireProtocol.oldestVersion))
        // A version notice submitted while connecting is not sent to a host of version 2.
        _ = session.eventSubmitted(.itemVersionsChanged("/f", Self.notice), now: Tests.at(0))
        _ = session.connected(attempt: 1, now: Tests.at(1))
        let welcomed = session.frameReceived(.welcome(version: 2, clientID: ClientID(1)), attempt: 1, now: Tests.at(2))
        #expect(session.phase == .connected(attempt: 1))
        #expect(session.agreedVersion == 2)
        #expect(
            welcomed == [
                .send(
                    .presenterRegistered(
                        PresenterID(5), purpose: Tests.purpose, path: "/f", observesUncoordinatedChanges: false),
                    attempt: 1)
            ])
        // Nor one submitted while connected; frames of both versions go out as before.
        #expect(session.eventSubmitted(.itemVersionsChanged("/f", Self.notice), now: Tests.at(3)).isEmpty)
        #expect(
            session.eventSubmitted(Tests.request(1), now: Tests.at(3)).first.map {
                if case .send(.accessRequested, attempt: 1) = $0 { true } else { false }
            } == true)
        // A host of version 2 that delivers a version notice breaks the protocol: the session reconnects.
        let didChange = Self.delivery(.didChange, id: 1)
        #expect(session.frameReceived(didChange, attempt: 1, now: Tests.at(4)).count == 1)
        let lost = session.frameReceived(
            Self.delivery(.versionsChanged(Self.notice), id: 2), attempt: 1, now: Tests.at(5))
        #expect(lost == [.close(attempt: 1), .connect(attempt: 2, offer: Self.offer)])
    }

    @Test("at the current version, version notices go both ways")
    func welcomedAtTheCurrentVersion() {
        var (session, _) = Tests.connectedSession()
        #expect(session.agreedVersion == WireProtocol.version)
        #expect(
            session.eventSubmitted(.itemVersionsChanged("/f", Self.notice), now: Tests.at(3))
                == [.send(.versionsChanged("/f", Self.notice), attempt: 1)])
        let notice = Self.delivery(.subitemVersionsChanged("/f/g", Self.notice), id: 1)
        #expect(session.frameReceived(notice, attempt: 1, now: Tests.at(4)).count == 1)
        #expect(session.phase == .connected(attempt: 1))
    }

    @Test("a welcome at a version the session did not offer ends the attempt; waiting requests say why")
    func welcomeOutsideTheOffer() {
        for version in [WireProtocol.oldestVersion - 1, WireProtocol.version + 1] {
            var session = ArbiterSession()
            _ = session.eventSubmitted(Tests.request(1), now: Tests.at(0))
            _ = session.connected(attempt: 1, now: Tests.at(1))
            let actions = session.frameReceived(
                .welcome(version: version, clientID: ClientID(1)), attempt: 1, now: Tests.at(2))
            #expect(actions.first == .close(attempt: 1))
            #expect(
                actions.contains {
                    guard case .perform(.unavailable(RequestID(1), let reason)) = $0 else { return false }
                    return reason.contains("version \(version)")
                })
            #expect(session.phase != .connected(attempt: 1))
        }
    }

    @Test("a host that drops the hello unanswered is offered the old layout next, then the range again")
    func legacyHelloAfterAnUnansweredHello() {
        var session = ArbiterSession()
        _ = session.eventSubmitted(Tests.request(1), now: Tests.at(0))
        _ = session.connected(attempt: 1, now: Tests.at(1))
        #expect(session.connectionLost(attempt: 1, reason: "eof", now: Tests.at(2)) == [.close(attempt: 1)])
        #expect(session.timePassed(now: Tests.at(3)) == [.connect(attempt: 2, offer: Self.legacy)])
        _ = session.connected(attempt: 2, now: Tests.at(4))
        // A welcome at another version than the one a legacy hello offered is not taken.
        var other = session
        #expect(
            other.frameReceived(
                .welcome(version: WireProtocol.oldestVersion, clientID: ClientID(1)), attempt: 2, now: Tests.at(5)
            ).first == .close(attempt: 2))
        // Lost again: the next attempt offers the range again.
        _ = session.connectionLost(attempt: 2, reason: "eof", now: Tests.at(5))
        #expect(session.timePassed(now: Tests.at(6)) == [.connect(attempt: 3, offer: Self.offer)])
        _ = session.connected(attempt: 3, now: Tests.at(7))
        _ = session.connectionLost(attempt: 3, reason: "eof", now: Tests.at(8))
        #expect(session.timePassed(now: Tests.at(9)) == [.connect(attempt: 4, offer: Self.legacy)])
        _ = session.connected(attempt: 4, now: Tests.at(10))
        // The old layout names version 3, the one builds from before negotiation speak.
        let oldWelcome = WireFrame.welcome(version: WireProtocol.preNegotiationVersion, clientID: ClientID(1))
        #expect(!session.frameReceived(oldWelcome, attempt: 4, now: Tests.at(11)).isEmpty)
        #expect(session.phase == .connected(attempt: 4))
        #expect(session.agreedVersion == 3)
        // A refused connection is not retried in the old layout: the host answered.
        var refused = ArbiterSession()
        _ = refused.eventSubmitted(Tests.request(1), now: Tests.at(0))
        _ = refused.connected(attempt: 1, now: Tests.at(1))
        _ = refused.frameReceived(.refused(reason: "no"), attempt: 1, now: Tests.at(2))
        #expect(refused.eventSubmitted(Tests.request(2), now: Tests.at(3)) == [.connect(attempt: 2, offer: Self.offer)])
    }

    @Test("a session of a narrower range offers only it")
    func narrowerRange() {
        var session = ArbiterSession(negotiation: VersionNegotiation(supported: 2...2))
        #expect(
            session.eventSubmitted(Tests.request(1), now: Tests.at(0))
                == [.connect(attempt: 1, offer: VersionNegotiation.Offer(newest: 2, lowest: 2))])
    }
}
