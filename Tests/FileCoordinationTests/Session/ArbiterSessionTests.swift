import CoordinationArbiter
import Testing

@testable import FileCoordination

/// The client's session with the shared arbiter, fed events by hand (no socket, no clock, no thread).
@Suite("Arbiter session (pure)")
struct ArbiterSessionTests {
    typealias Action = ArbiterSession.Action

    static let purpose = PurposeID("p")
    static func write(_ path: String) -> [AccessIntent] { [AccessIntent(path: ItemPath(path), access: .writing([]))] }
    static func at(_ milliseconds: UInt64) -> Instant { Instant(nanoseconds: 1_000_000_000 + milliseconds * 1_000_000) }
    static func request(_ id: UInt64, deadline: Instant? = nil) -> ClientEvent {
        .accessRequested(RequestID(id), purpose: purpose, intents: write("/f\(id)"), deadline: deadline, nestedIn: nil)
    }
    static let welcome = WireFrame.welcome(version: WireProtocol.version, clientID: ClientID(1))

    /// Connects a fresh session (attempt 1) after `before` events; returns the actions of the welcome.
    static func connectedSession(after before: [ClientEvent] = []) -> (ArbiterSession, [Action]) {
        var session = ArbiterSession()
        var first: [Action] = []
        for event in before { first += session.eventSubmitted(event, now: at(0)) }
        if before.isEmpty { first = session.eventSubmitted(.presenterRemoved(PresenterID(99)), now: at(0)) }
        #expect(first == [.connect(attempt: 1)])
        #expect(session.connected(attempt: 1, now: at(1)).isEmpty)
        let actions = session.frameReceived(welcome, attempt: 1, now: at(2))
        return (session, actions)
    }

    @Test("the first event starts connecting; what came before the welcome is declared once, presenters first")
    func eventsBeforeTheWelcomeAreDeclaredOnce() {
        let register = ClientEvent.presenterRegistered(
            PresenterID(5), purpose: Self.purpose, path: "/f1", observesUncoordinatedChanges: false)
        var session = ArbiterSession()
        #expect(session.eventSubmitted(Self.request(1), now: Self.at(0)) == [.connect(attempt: 1)])
        #expect(session.eventSubmitted(register, now: Self.at(0)).isEmpty)
        #expect(session.connected(attempt: 1, now: Self.at(1)).isEmpty)
        #expect(
            session.phase
                == .handshaking(
                    ArbiterSession.Attempt(number: 1, giveUp: Self.at(2000), redeclaring: false),
                    deadline: Self.at(2001)))
        let actions = session.frameReceived(Self.welcome, attempt: 1, now: Self.at(3))
        #expect(
            actions == [
                .send(
                    .presenterRegistered(
                        PresenterID(5), purpose: Self.purpose, path: "/f1", observesUncoordinatedChanges: false),
                    attempt: 1),
                .send(
                    .accessRequested(
                        RequestID(1), purpose: Self.purpose, intents: Self.write("/f1"), timeout: nil,
                        nestedIn: nil, reclaim: false, age: 3_000_000), attempt: 1),
            ])
        #expect(session.phase == .connected(attempt: 1))
        // Connected: each event is sent as it comes.
        #expect(
            session.eventSubmitted(.accessEnded(RequestID(1), presence: []), now: Self.at(4))
                == [.send(.accessEnded(RequestID(1), presence: []), attempt: 1)])
    }

    @Test("the host dies while an access is held: cut rounds reacquire, the access is reclaimed, then redeclared")
    func hostDeathReclaimsHeldAccesses() {
        var (session, _) = Self.connectedSession(after: [Self.request(1), Self.request(2)])
        #expect(
            session.frameReceived(.grant(RequestID(1), paths: ["/moved"]), attempt: 1, now: Self.at(3))
                == [.perform(.grant(RequestID(1), paths: ["/moved"], reportsPresence: false))])
        let relinquish = PresenterDelivery(
            client: ClientID(1), presenter: PresenterID(7), id: MessageID(40), message: .relinquishToWriter,
            request: RequestID(9))
        #expect(
            session.frameReceived(.deliver(relinquish), attempt: 1, now: Self.at(4)) == [.perform(.deliver(relinquish))]
        )
        let lost = session.connectionLost(attempt: 1, reason: "end of stream", now: Self.at(5))
        #expect(
            lost == [
                .close(attempt: 1),
                .perform(
                    .deliver(
                        PresenterDelivery(
                            client: ClientID(0), presenter: PresenterID(7), id: MessageID(0),
                            message: .reacquire(relinquishMessage: MessageID(40)), request: RequestID(0)))),
                .connect(attempt: 2),
            ])
        // A reply to the dead host's message is not sent to the next one.
        #expect(session.eventSubmitted(.presenterReplied(MessageID(40), failure: nil), now: Self.at(6)).isEmpty)
        #expect(session.connected(attempt: 2, now: Self.at(7)).isEmpty)
        let declared = session.frameReceived(Self.welcome, attempt: 2, now: Self.at(8))
        #expect(
            declared == [
                .send(
                    .accessRequested(
                        RequestID(1), purpose: Self.purpose, intents: Self.write("/moved"), timeout: nil,
                        nestedIn: nil, reclaim: true, age: 8_000_000), attempt: 2),
                .send(
                    .accessRequested(
                        RequestID(2), purpose: Self.purpose, intents: Self.write("/f2"), timeout: nil,
                        nestedIn: nil, reclaim: false, age: 8_000_000), attempt: 2),
                .send(.redeclared, attempt: 2),
            ])
    }

    @Test("a refused hello fails waiting requests with the host's reason; the next request tries again")
    func refusedHandshake() {
        var session = ArbiterSession()
        _ = session.eventSubmitted(Self.request(1), now: Self.at(0))
        _ = session.connected(attempt: 1, now: Self.at(1))
        let actions = session.frameReceived(.refused(reason: "version 9"), attempt: 1, now: Self.at(2))
        #expect(
            actions == [
                .close(attempt: 1), .perform(.unavailable(RequestID(1), "the shared arbiter refused: version 9")),
            ])
        #expect(session.outstandingRequests == 0)
        // A presenter registration alone does not try again; a request does.
        #expect(session.eventSubmitted(.presenterRemoved(PresenterID(1)), now: Self.at(3)).isEmpty)
        #expect(session.eventSubmitted(Self.request(2), now: Self.at(4)) == [.connect(attempt: 2)])
    }

    @Test("a host that never answers hello: retries within the patience, then waiting requests fail")
    func silentHostRunsOutOfPatience() {
        var session = ArbiterSession()
        _ = session.eventSubmitted(Self.request(1), now: Self.at(0))
        _ = session.connected(attempt: 1, now: Self.at(0))
        #expect(session.deadline == Self.at(2000))
        #expect(session.timePassed(now: Self.at(1999)).isEmpty)
        let actions = session.timePassed(now: Self.at(2000))
        #expect(
            actions == [
                .close(attempt: 1),
                .perform(.unavailable(RequestID(1), "the shared arbiter did not answer hello within 2 seconds")),
            ])
        // Lost before the answer, early in a series: another attempt after a pause, with the hello of a build
        // from before negotiation (such a host drops the hello with the range unanswered).
        _ = session.eventSubmitted(Self.request(2), now: Self.at(3000))
        _ = session.connected(attempt: 2, now: Self.at(3000))
        #expect(session.connectionLost(attempt: 2, reason: "reset", now: Self.at(3001)) == [.close(attempt: 2)])
        #expect(session.timePassed(now: Self.at(3001)).isEmpty)
        #expect(
            session.timePassed(now: Instant(nanoseconds: Self.at(3001).nanoseconds + ArbiterSession.retryPause))
                == [.connect(attempt: 3, offer: VersionNegotiation.current.offer(legacy: true))])
    }

    @Test("late frames of a closed connection, duplicate grants and a stale connect change nothing")
    func lateAndDuplicateFrames() {
        var (session, _) = Self.connectedSession(after: [Self.request(1), Self.request(2)])
        #expect(session.frameReceived(.grant(RequestID(1), paths: ["/f1"]), attempt: 1, now: Self.at(3)).count == 1)
        #expect(session.frameReceived(.grant(RequestID(1), paths: ["/f1"]), attempt: 1, now: Self.at(3)).isEmpty)
        #expect(session.frameReceived(.fail(RequestID(1), .cancelled), attempt: 1, now: Self.at(3)).isEmpty)
        #expect(session.frameReceived(.grant(RequestID(77), paths: ["/x"]), attempt: 1, now: Self.at(3)).isEmpty)
        _ = session.connectionLost(attempt: 1, reason: "gone", now: Self.at(4))
        #expect(session.frameReceived(.grant(RequestID(2), paths: ["/f2"]), attempt: 1, now: Self.at(5)).isEmpty)
        #expect(session.connectionLost(attempt: 1, reason: "gone again", now: Self.at(5)).isEmpty)
        // Attempt 2 is under way; a report for attempt 1 is stale: its socket is closed, nothing else.
        #expect(session.connected(attempt: 1, now: Self.at(6)) == [.close(attempt: 1)])
        #expect(session.connectFailed(attempt: 1, reason: "x", retryable: false, now: Self.at(6)).isEmpty)
    }

    @Test("a frame a host must not send ends the connection, never the process")
    func protocolViolationReconnects() {
        var (session, _) = Self.connectedSession(after: [Self.request(1)])
        let actions = session.frameReceived(
            .hello(version: 1, pid: 1, commandLine: "evil"), attempt: 1, now: Self.at(3))
        #expect(actions == [.close(attempt: 1), .connect(attempt: 2)])
        // During the handshake, an unexpected answer fails the attempt.
        _ = session.connected(attempt: 2, now: Self.at(4))
        let refused = session.frameReceived(.grant(RequestID(1), paths: []), attempt: 2, now: Self.at(5))
        #expect(refused.first == .close(attempt: 2))
        #expect(
            refused.contains {
                guard case .perform(.unavailable(RequestID(1), let reason)) = $0 else { return false }
                return reason.hasPrefix("the shared arbiter answered hello with grant")
            })
    }

    @Test("a snapshot asked while connecting is sent after the declarations and answered once")
    func snapshotWaitsForTheConnection() {
        var session = ArbiterSession()
        let register = ClientEvent.presenterRegistered(
            PresenterID(1), purpose: Self.purpose, path: "/a", observesUncoordinatedChanges: true)
        _ = session.eventSubmitted(register, now: Self.at(0))
        #expect(session.snapshotRequested(tag: 4, now: Self.at(0)).isEmpty)
        _ = session.connected(attempt: 1, now: Self.at(1))
        let actions = session.frameReceived(Self.welcome, attempt: 1, now: Self.at(2))
        #expect(actions.last == .send(.snapshotRequest(tag: 4), attempt: 1))
        let snapshot = WireSnapshot(presenters: [], claims: [])
        #expect(
            session.frameReceived(.snapshotResponse(tag: 4, snapshot), attempt: 1, now: Self.at(3))
                == [.answerSnapshot(tag: 4, .snapshot(snapshot))])
        #expect(session.frameReceived(.snapshotResponse(tag: 4, snapshot), attempt: 1, now: Self.at(3)).isEmpty)
    }

    @Test("an invalid configuration fails every request at once and never connects")
    func permanentFailure() {
        var session = ArbiterSession(permanentFailure: "bad scope")
        #expect(
            session.eventSubmitted(Self.request(1), now: Self.at(0)) == [
                .perform(.unavailable(RequestID(1), "bad scope"))
            ])
        #expect(session.eventSubmitted(.presenterRemoved(PresenterID(1)), now: Self.at(0)).isEmpty)
        #expect(
            session.snapshotRequested(tag: 1, now: Self.at(0)) == [.answerSnapshot(tag: 1, .unavailable("bad scope"))])
    }
}

extension ArbiterSessionTests {
    @Test("a one-off event submitted while connecting (a version notice) is sent after the declarations")
    func oneOffEventsWaitForTheConnection() {
        let notice = ClientEvent.itemVersionsChanged("/f", VersionNotice(.gained, version: [1, 2]))
        var session = ArbiterSession()
        #expect(session.eventSubmitted(notice, now: Self.at(0)) == [.connect(attempt: 1)])
        #expect(session.isConnecting)
        _ = session.eventSubmitted(Self.request(1), now: Self.at(0))
        _ = session.connected(attempt: 1, now: Self.at(1))
        let actions = session.frameReceived(Self.welcome, attempt: 1, now: Self.at(2))
        #expect(actions.count == 2)
        #expect(actions.last == .send(.versionsChanged("/f", VersionNotice(.gained, version: [1, 2])), attempt: 1))
        #expect(!session.isConnecting)
        // With no host to be had, the notice is dropped, not kept for later.
        var lonely = ArbiterSession()
        _ = lonely.eventSubmitted(notice, now: Self.at(0))
        _ = lonely.connectFailed(attempt: 1, reason: "no", retryable: false, now: Self.at(1))
        _ = lonely.eventSubmitted(Self.request(1), now: Self.at(2))
        _ = lonely.connected(attempt: 2, now: Self.at(3))
        #expect(lonely.frameReceived(Self.welcome, attempt: 2, now: Self.at(4)).count == 1)
    }
}
