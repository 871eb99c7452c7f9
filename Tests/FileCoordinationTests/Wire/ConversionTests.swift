#if DEBUG  // @testable needs a debug build (or -enable-testing)
import CoordinationArbiter
import Testing

@testable import FileCoordination

/// Frames carry ``ClientEvent``s and ``ClientAction``s, with deadlines turned into timeouts and back.
@Suite struct ConversionTests {
    /// Every event arrives as the same event, its deadline moved to the host's clock.
    @Test func eventsCrossTheWire() throws {
        let clientNow = Instant(nanoseconds: 1_000)
        let hostNow = Instant(nanoseconds: 50_000)
        let events: [ClientEvent] = [
            .presenterRegistered(
                PresenterID(1), purpose: SampleFrames.purpose, path: SampleFrames.unicodePath,
                observesUncoordinatedChanges: true),
            .presenterMoved(PresenterID(1), path: nil),
            .presenterRemoved(PresenterID(1)),
            .accessRequested(
                RequestID(2), purpose: SampleFrames.purpose, intents: SampleFrames.intents,
                deadline: Instant(nanoseconds: 1_500), nestedIn: RequestID(1)),
            .accessEnded(RequestID(2), presence: [nil, ItemPresence(existedBefore: true, existsAfter: true)]),
            .itemMoved(RequestID(2), from: "/a", to: "/b"),
            .cancelRequested(RequestID(2)),
            .presenterReplied(MessageID(3), failure: SampleFrames.presenterFailure),
            .itemVersionsChanged(SampleFrames.unicodePath, VersionNotice(.resolved, version: [1, 2, 3])),
        ]
        for event in events {
            let sent = WireFrame(event, now: clientNow)
            let received = try #require(try WireTesting.decodeAll(WireEncoder.encode(sent)).get().first)
            let delivered = try #require(received.clientEvent(receivedAt: hostNow))
            // The host's deadline is its own `now` plus the 500 ns the client had left.
            let expected: ClientEvent
            switch event {
            case .accessRequested(let request, let purpose, let intents, _, let nestedIn):
                expected = .accessRequested(
                    request, purpose: purpose, intents: intents, deadline: Instant(nanoseconds: 50_500),
                    nestedIn: nestedIn)
            case .presenterRegistered, .presenterMoved, .presenterRemoved, .accessEnded, .itemMoved,
                .cancelRequested, .presenterReplied, .itemVersionsChanged:
                expected = event
            }
            #expect(WireFrame(delivered, now: hostNow) == WireFrame(expected, now: hostNow))
            #expect(received.clientAction == nil)
        }
    }

    /// Deadlines: none stays none, a past one becomes a zero timeout, a huge timeout saturates on the host.
    @Test func deadlinesBecomeTimeouts() {
        let now = Instant(nanoseconds: 1_000)
        func timeout(_ deadline: Instant?, reclaim: Bool = false) -> WireFrame {
            WireFrame(
                .accessRequested(RequestID(1), purpose: PurposeID("p"), intents: [], deadline: deadline, nestedIn: nil),
                now: now,
                reclaim: reclaim)
        }
        let none = WireFrame.accessRequested(
            RequestID(1), purpose: PurposeID("p"), intents: [], timeout: nil, nestedIn: nil, reclaim: false)
        #expect(timeout(nil) == none)
        #expect(
            timeout(Instant(nanoseconds: 10), reclaim: true)
                == .accessRequested(
                    RequestID(1), purpose: PurposeID("p"), intents: [], timeout: 0, nestedIn: nil, reclaim: true))
        let huge = WireFrame.accessRequested(
            RequestID(1), purpose: PurposeID("p"), intents: [], timeout: .max, nestedIn: nil, reclaim: false)
        guard case .accessRequested(_, _, _, let deadline?, _)? = huge.clientEvent(receivedAt: now) else {
            Issue.record("no deadline")
            return
        }
        #expect(deadline == Instant(nanoseconds: .max))
    }

    /// Every action arrives as the same action; frames that are not actions or events give nil.
    @Test func actionsCrossTheWire() throws {
        let actions: [ClientAction] = [
            .grant(RequestID(1), paths: [SampleFrames.unicodePath, .root], reportsPresence: false),
            .grant(RequestID(1), paths: [.root], reportsPresence: true),
            .fail(RequestID(2), .presenterFailed(SampleFrames.presenterFailure)),
            .fail(RequestID(3), .timedOut("/x")),
            .deliver(
                PresenterDelivery(
                    client: ClientID(1), presenter: PresenterID(2), id: MessageID(3), message: .didMove("/y"),
                    request: RequestID(4))),
        ]
        for action in actions {
            let frame = try #require(WireFrame(action))
            let received = try #require(try WireTesting.decodeAll(WireEncoder.encode(frame)).get().first)
            let delivered = try #require(received.clientAction)
            #expect(WireFrame(delivered) == frame)
            #expect(received.clientEvent(receivedAt: Instant(nanoseconds: 0)) == nil)
        }
        let handshake = WireFrame.hello(version: 1, pid: 1, commandLine: "")
        #expect(handshake.clientAction == nil)
        #expect(handshake.clientEvent(receivedAt: Instant(nanoseconds: 0)) == nil)
    }

    /// A presenter's error survives as domain, code and message; other failure bytes are not mistaken for one.
    @Test func remotePresenterErrors() {
        let error = RemotePresenterError(domain: "NSPOSIXErrorDomain", code: 13, message: "Permission denied")
        #expect(RemotePresenterError(error.presenterFailure) == error)
        #expect(RemotePresenterError(PresenterFailure(encoded: [1, 0, 0, 0, 0, 0, 0, 0])) == nil)
        #expect(RemotePresenterError(PresenterFailure(encoded: error.presenterFailure.encoded + [0])) == nil)
        #expect(error.description == "NSPOSIXErrorDomain 13: Permission denied")
    }

    /// Over-long texts are cut at a character boundary, so that a reply always fits in a frame.
    @Test func longMessagesAreClipped() {
        let message = String(repeating: "é", count: RemotePresenterError.maximumTextLength)
        let error = RemotePresenterError(domain: "d", code: 1, message: "x" + message)
        #expect(error.message.utf8.count <= RemotePresenterError.maximumTextLength)
        #expect(error.message.utf8.count >= RemotePresenterError.maximumTextLength - 1)
        #expect(error.message.dropFirst().allSatisfy { $0 == "é" })
        #expect(RemotePresenterError(error.presenterFailure) == error)
    }

    /// A host's arbiter snapshot travels with its clients' process ids.
    @Test func arbiterSnapshotCrossesTheWire() throws {
        var arbiter = Arbiter()
        let now = Instant(nanoseconds: 77)
        _ = arbiter.presenterRegistered(
            PresenterID(1), client: ClientID(1), purpose: PurposeID("viewer"), path: SampleFrames.unicodePath,
            observesUncoordinatedChanges: true)
        _ = arbiter.presenterRegistered(PresenterID(2), client: ClientID(2), purpose: PurposeID("idle"), path: nil)
        _ = arbiter.accessRequested(
            RequestID(10), client: ClientID(2), purpose: PurposeID("writer"),
            intents: [.writing(SampleFrames.documentPath)],
            now: now)
        _ = arbiter.accessRequested(
            RequestID(11), client: ClientID(3), purpose: PurposeID("reader"),
            intents: [.reading(SampleFrames.documentPath)],
            now: now)
        let arbiterSnapshot = arbiter.snapshot()
        let snapshot = WireSnapshot(arbiterSnapshot) { Int32(truncatingIfNeeded: $0.rawValue) * 100 }
        #expect(snapshot.presenters.map(\.pid) == arbiterSnapshot.presenters.map { Int32($0.client.rawValue) * 100 })
        #expect(snapshot.claims.map(\.path) == arbiterSnapshot.claims.map(\.path))
        let pathClaims = try #require(snapshot.claims.first)
        #expect(pathClaims.holders.map(\.request) == [RequestID(10)])
        #expect(pathClaims.waiters.map(\.request) == [RequestID(11)])
        #expect(pathClaims.waiters.map(\.blockedBy) == [[RequestID(10)]])
        #expect(pathClaims.waiters.map(\.pid) == [300])
        let frame = WireFrame.snapshotResponse(tag: 5, snapshot)
        #expect(try WireTesting.decodeAll(WireEncoder.encode(frame)).get() == [frame])
    }
}
#endif
