import CoordinationArbiter
import Testing

@testable import FileCoordination

/// The shared arbiter's host session, fed events by hand (no socket, no file, no clock, no thread).
@Suite("Host session (pure)")
struct HostSessionTests {
    typealias Action = HostSession.Action

    /// The versions the sessions under test speak.
    static let versions = VersionNegotiation(supported: 2...3)
    /// `milliseconds` after the start.
    static func at(_ milliseconds: UInt64) -> Instant { Instant(nanoseconds: 1_000_000_000 + milliseconds * 1_000_000) }
    /// A hello offering `lowest...newest`.
    static func hello(_ newest: UInt16 = 3, lowest: UInt16? = 2) -> WireFrame {
        .hello(version: newest, pid: 0, commandLine: "test", lowestVersion: lowest)
    }
    /// One intent on `path`.
    static func intents(_ path: String, writes: Bool = true) -> [AccessIntent] {
        [AccessIntent(path: ItemPath(path), access: writes ? .writing([]) : .reading([]))]
    }
    /// An `accessRequested` frame.
    static func request(
        _ id: UInt64, _ path: String, writes: Bool = true, purpose: String = "p", timeout: UInt64? = nil,
        age: UInt64 = 0, reclaim: Bool = false
    ) -> WireFrame {
        .accessRequested(
            RequestID(id), purpose: PurposeID(purpose), intents: intents(path, writes: writes), timeout: timeout,
            nestedIn: nil, reclaim: reclaim, age: age)
    }
    /// The action that sends the grant of `id` on `path` to `slot`.
    static func grant(_ id: UInt64, _ path: String, to slot: UInt64) -> Action {
        .send(.grant(RequestID(id), paths: [ItemPath(path)]), to: slot)
    }
    /// The encoded size of `frame`.
    static func size(_ frame: WireFrame) -> Int { (try? WireEncoder.size(of: frame)) ?? -1 }

    /// Accepts a client of process `pid` and welcomes it at version 3 (or `version`); returns its slot.
    static func welcomed(
        _ session: inout HostSession, pid: Int32, version: UInt16 = 3, now: Instant = at(0)
    ) -> UInt64 {
        let slot = session.connectionAccepted(pid: pid)
        let actions = session.frameReceived(hello(version, lowest: version), from: slot, now: now)
        #expect(actions == [.send(.welcome(version: version, clientID: ClientID(slot)), to: slot)])
        return slot
    }

    // MARK: handshake

    @Test("hello agrees on the highest version both speak; a legacy hello gets its only version")
    func handshakeAgreesOnAVersion() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let newer = session.connectionAccepted(pid: 10)
        #expect(newer == 1)
        #expect(
            session.frameReceived(Self.hello(7, lowest: 2), from: newer, now: Self.at(0))
                == [.send(.welcome(version: 3, clientID: ClientID(1)), to: 1)])
        let legacy = session.connectionAccepted(pid: 11)
        #expect(
            session.frameReceived(Self.hello(2, lowest: nil), from: legacy, now: Self.at(0))
                == [.send(.welcome(version: 2, clientID: ClientID(2)), to: 2)])
        // Welcoming lists nobody for a successor: only declarations do.
        #expect(session.openSlots == [1, 2])
    }

    @Test("a client with no version in common is refused, closed once the refusal is written, and unheard meanwhile")
    func refusedClientIsClosedAfterItsRefusal() throws {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let slot = session.connectionAccepted(pid: 10)
        let actions = session.frameReceived(Self.hello(9, lowest: 5), from: slot, now: Self.at(0))
        guard case .send(.refused(let reason), to: slot)? = actions.first, actions.count == 1 else {
            Issue.record("expected one refusal, got \(actions)")
            return
        }
        #expect(reason.contains("versions 2…3"))
        #expect(reason.contains("versions 5…9"))
        // It is not heard any more: a second hello, a request.
        #expect(session.frameReceived(Self.hello(), from: slot, now: Self.at(1)).isEmpty)
        #expect(session.frameReceived(Self.request(1, "/f"), from: slot, now: Self.at(1)).isEmpty)
        let total = Self.size(.refused(reason: reason))
        #expect(session.outputWritten(total - 1, to: slot).isEmpty)
        #expect(session.outputWritten(1, to: slot) == [.close(slot, .refused)])
        #expect(session.openSlots.isEmpty)
        // Its slot is free again.
        #expect(session.connectionAccepted(pid: 12) == slot)
    }

    @Test("anything but hello first, garbage bytes and a frame too long close the connection")
    func badHandshakesClose() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let first = session.connectionAccepted(pid: 10)
        #expect(
            session.frameReceived(Self.request(1, "/f"), from: first, now: Self.at(0)) == [
                .close(first, .protocolViolation)
            ])
        let second = session.connectionAccepted(pid: 11)
        // A frame of an unknown type: length 1, type 0xFF.
        #expect(
            session.bytesReceived([1, 0, 0, 0, 0xFF], from: second, now: Self.at(0)) == [
                .close(second, .protocolViolation)
            ])
        let third = session.connectionAccepted(pid: 12)
        #expect(
            session.bytesReceived([0xFF, 0xFF, 0xFF, 0x7F], from: third, now: Self.at(0)) == [
                .close(third, .protocolViolation)
            ])
        #expect(session.openSlots.isEmpty)
    }

    @Test("a hello split across reads is decoded once whole; frames after it in the same read are handled")
    func framesAcrossReads() throws {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let slot = session.connectionAccepted(pid: 10)
        let bytes = try WireEncoder.encode(Self.hello()) + WireEncoder.encode(Self.request(1, "/f"))
        let half = 6
        #expect(session.bytesReceived(Array(bytes[..<half]), from: slot, now: Self.at(0)).isEmpty)
        #expect(
            session.bytesReceived(Array(bytes[half...]), from: slot, now: Self.at(0))
                == [
                    .send(.welcome(version: 3, clientID: ClientID(slot)), to: slot), .writeClientList([10]),
                    Self.grant(1, "/f", to: slot),
                ])
    }

    @Test("a client that dies mid-handshake is closed; its late frames and hang-ups change nothing")
    func deathMidHandshake() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let slot = session.connectionAccepted(pid: 10)
        #expect(session.hungUp(slot) == [.close(slot, .hungUp)])
        #expect(session.frameReceived(Self.hello(), from: slot, now: Self.at(1)).isEmpty)
        #expect(session.bytesReceived([1, 0, 0, 0, 0xFF], from: slot, now: Self.at(1)).isEmpty)
        #expect(session.hungUp(slot).isEmpty)
        #expect(session.outputWritten(10, to: slot).isEmpty)
        #expect(session.openSlots.isEmpty)
    }

    @Test("a second hello, or a frame only a host sends, closes the client and releases what it held")
    func secondHelloCloses() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let holder = Self.welcomed(&session, pid: 10)
        let waiter = Self.welcomed(&session, pid: 11)
        #expect(
            session.frameReceived(Self.request(1, "/f", purpose: "a"), from: holder, now: Self.at(1))
                == [.writeClientList([10]), Self.grant(1, "/f", to: holder)])
        #expect(
            session.frameReceived(Self.request(1, "/f", purpose: "b"), from: waiter, now: Self.at(2))
                == [.writeClientList([10, 11])])
        #expect(
            session.frameReceived(Self.hello(), from: holder, now: Self.at(3))
                == [.close(holder, .protocolViolation), .writeClientList([11]), Self.grant(1, "/f", to: waiter)])
        #expect(
            session.frameReceived(.grant(RequestID(1), paths: ["/f"]), from: waiter, now: Self.at(4))
                == [.close(waiter, .protocolViolation), .writeClientList([])])
    }

    @Test("a frame of a later version than the one agreed closes the client")
    func laterVersionFrameCloses() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let slot = Self.welcomed(&session, pid: 10, version: 2)
        let notice = WireFrame.versionsChanged("/f", VersionNotice(.gained, version: [1]))
        #expect(session.frameReceived(notice, from: slot, now: Self.at(1)) == [.close(slot, .protocolViolation)])
    }

    // MARK: ids

    @Test("clients' ids are their own: two clients both asking with id 1 each get their grant as id 1")
    func idsAreMangledPerClient() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let first = Self.welcomed(&session, pid: 10)
        let second = Self.welcomed(&session, pid: 11)
        #expect(
            session.frameReceived(Self.request(1, "/f", purpose: "a"), from: first, now: Self.at(1))
                == [.writeClientList([10]), Self.grant(1, "/f", to: first)])
        #expect(
            session.frameReceived(Self.request(1, "/f", purpose: "b"), from: second, now: Self.at(1))
                == [.writeClientList([10, 11])])
        // The first client's presenter 7 hears of the second's request as presenter 7, of request 1.
        #expect(
            session.frameReceived(
                .presenterRegistered(
                    PresenterID(7), purpose: PurposeID("a"), path: "/g", observesUncoordinatedChanges: false),
                from: first, now: Self.at(2)
            ).isEmpty)
        #expect(
            session.frameReceived(Self.request(2, "/g", purpose: "b"), from: second, now: Self.at(3))
                == [
                    .send(
                        .deliver(
                            PresenterDelivery(
                                client: ClientID(first), presenter: PresenterID(7), id: MessageID(1),
                                message: .relinquishToWriter, request: RequestID(2))), to: first)
                ])
        // Ending the first client's request 1 hands /f to the second client's request 1.
        #expect(
            session.frameReceived(.accessEnded(RequestID(1), presence: []), from: first, now: Self.at(4))
                == [Self.grant(1, "/f", to: second)])
    }

    @Test("an id above the client's 40 bits disconnects that client only")
    func tooLargeIdDisconnectsOnlyThatClient() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let good = Self.welcomed(&session, pid: 10)
        let bad = Self.welcomed(&session, pid: 11)
        #expect(
            session.frameReceived(Self.request(1, "/f", purpose: "a"), from: bad, now: Self.at(1))
                == [.writeClientList([11]), Self.grant(1, "/f", to: bad)])
        #expect(
            session.frameReceived(Self.request(1, "/f", purpose: "b"), from: good, now: Self.at(1))
                == [.writeClientList([10, 11])])
        let tooLarge = HostSession.localMask + 1
        #expect(
            session.frameReceived(.cancelRequested(RequestID(tooLarge)), from: bad, now: Self.at(2))
                == [.close(bad, .protocolViolation), .writeClientList([10]), Self.grant(1, "/f", to: good)])
        // The largest id that fits is fine.
        #expect(
            session.frameReceived(Self.request(HostSession.localMask, "/h", purpose: "b"), from: good, now: Self.at(3))
                == [Self.grant(HostSession.localMask, "/h", to: good)])
        #expect(session.openSlots == [good])
    }

    @Test("the arbiter's protocol violations (a duplicate request id) disconnect the client")
    func arbiterViolationDisconnects() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let slot = Self.welcomed(&session, pid: 10)
        _ = session.frameReceived(Self.request(1, "/f"), from: slot, now: Self.at(1))
        #expect(
            session.frameReceived(Self.request(1, "/g"), from: slot, now: Self.at(2))
                == [.close(slot, .protocolViolation), .writeClientList([])])
    }

    // MARK: grace period

    @Test("during the grace period registrations and reclaims are accepted, requests and cancels deferred")
    func graceDefersRequestsAndCancels() {
        var session = HostSession(awaiting: [100, 101], now: Self.at(0), negotiation: Self.versions)
        #expect(session.isInGracePeriod)
        #expect(session.wakeUp(after: Self.at(0)) == Self.at(10))
        let old = Self.welcomed(&session, pid: 100)
        let new = Self.welcomed(&session, pid: 200)
        #expect(
            session.frameReceived(
                .presenterRegistered(
                    PresenterID(1), purpose: PurposeID("old"), path: "/p", observesUncoordinatedChanges: false),
                from: old, now: Self.at(1)) == [.writeClientList([100])])
        // The predecessor's client takes back its write of /a: no grant (its accessor runs already).
        #expect(
            session.frameReceived(Self.request(1, "/a", purpose: "old", reclaim: true), from: old, now: Self.at(1))
                .isEmpty)
        // New requests wait, even for free items; so do cancels.
        #expect(
            session.frameReceived(Self.request(1, "/a", purpose: "new"), from: new, now: Self.at(2))
                == [.writeClientList([100, 200])])
        #expect(session.frameReceived(Self.request(2, "/b", purpose: "new"), from: new, now: Self.at(3)).isEmpty)
        #expect(session.frameReceived(.cancelRequested(RequestID(1)), from: new, now: Self.at(4)).isEmpty)
        #expect(session.timePassed(now: Self.at(20)).isEmpty)
        // A snapshot is answered at once; it shows the reclaimed access.
        let answer = session.frameReceived(.snapshotRequest(tag: 5), from: new, now: Self.at(21))
        guard case .send(.snapshotResponse(5, let snapshot), to: new)? = answer.first else {
            Issue.record("no snapshot: \(answer)")
            return
        }
        #expect(snapshot.claims.map(\.path) == ["/a"])
        // The old client re-declared; 101 is still awaited.
        #expect(session.frameReceived(.redeclared, from: old, now: Self.at(30)).isEmpty)
        #expect(session.awaitedPIDs == [101])
        // 101 turns out dead: the grace period ends, the deferred work is replayed: /a waits for the reclaimed
        // access, /b is granted, and the cancel, replayed after the requests, fails the waiting /a.
        #expect(
            session.timePassed(now: Self.at(40), exited: [101])
                == [Self.grant(2, "/b", to: new), .send(.fail(RequestID(1), .cancelled), to: new)])
        #expect(!session.isInGracePeriod)
        #expect(session.wakeUp(after: Self.at(40)) == nil)
        // From now on requests go straight to the arbiter.
        #expect(
            session.frameReceived(Self.request(3, "/c", purpose: "new"), from: new, now: Self.at(41)) == [
                Self.grant(3, "/c", to: new)
            ])
    }

    @Test("deferred requests are replayed in first-asked order when the last awaited client re-declares")
    func replayInFirstAskedOrder() {
        var session = HostSession(awaiting: [100], now: Self.at(0), negotiation: Self.versions)
        let x = Self.welcomed(&session, pid: 300)
        let y = Self.welcomed(&session, pid: 301)
        let z = Self.welcomed(&session, pid: 302)
        let old = Self.welcomed(&session, pid: 100)
        // Arrival order x, y, z; first asked y (300 ms ago), z (100 ms ago), x (now).
        _ = session.frameReceived(Self.request(1, "/q", purpose: "x"), from: x, now: Self.at(500))
        _ = session.frameReceived(Self.request(1, "/q", purpose: "y", age: 300_000_000), from: y, now: Self.at(500))
        _ = session.frameReceived(Self.request(1, "/q", purpose: "z", age: 100_000_000), from: z, now: Self.at(500))
        #expect(session.frameReceived(.redeclared, from: old, now: Self.at(600)) == [Self.grant(1, "/q", to: y)])
        #expect(
            session.frameReceived(.accessEnded(RequestID(1)), from: y, now: Self.at(601)) == [
                Self.grant(1, "/q", to: z)
            ])
        #expect(
            session.frameReceived(.accessEnded(RequestID(1)), from: z, now: Self.at(602)) == [
                Self.grant(1, "/q", to: x)
            ])
        // A second `redeclared`, after the grace period, changes nothing.
        #expect(session.frameReceived(.redeclared, from: old, now: Self.at(603)).isEmpty)
    }

    @Test("the grace period ends after one second even if an awaited client never re-declares")
    func graceEndsAtItsDeadline() {
        var session = HostSession(awaiting: [100], now: Self.at(0), negotiation: Self.versions)
        let new = Self.welcomed(&session, pid: 200)
        _ = session.frameReceived(Self.request(1, "/a", timeout: 5_000_000_000), from: new, now: Self.at(10))
        #expect(session.wakeUp(after: Self.at(995)) == Self.at(1000))
        #expect(session.timePassed(now: Self.at(999)).isEmpty)
        #expect(session.isInGracePeriod)
        #expect(session.timePassed(now: Self.at(1000)) == [Self.grant(1, "/a", to: new)])
        #expect(!session.isInGracePeriod)
    }

    @Test("an awaited client that hangs up is released at once and stops being awaited once its process is gone")
    func awaitedClientDying() {
        var session = HostSession(awaiting: [100, 101], now: Self.at(0), negotiation: Self.versions)
        let old = Self.welcomed(&session, pid: 100)
        let survivor = Self.welcomed(&session, pid: 101)
        let new = Self.welcomed(&session, pid: 200)
        _ = session.frameReceived(Self.request(1, "/a", purpose: "old", reclaim: true), from: old, now: Self.at(1))
        _ = session.frameReceived(Self.request(1, "/a", purpose: "new"), from: new, now: Self.at(2))
        // Its reclaimed access ends with it; nothing is granted while 100 and 101 are awaited.
        #expect(session.hungUp(old) == [.close(old, .hungUp), .writeClientList([200])])
        #expect(session.frameReceived(.redeclared, from: survivor, now: Self.at(3)).isEmpty)
        #expect(session.awaitedPIDs == [100])
        #expect(session.timePassed(now: Self.at(12), exited: [100]) == [Self.grant(1, "/a", to: new)])
        // The deferred work of a client that died during the grace period is dropped.
        var again = HostSession(awaiting: [100], now: Self.at(0), negotiation: Self.versions)
        let gone = Self.welcomed(&again, pid: 200)
        _ = again.frameReceived(Self.request(1, "/a"), from: gone, now: Self.at(1))
        #expect(again.hungUp(gone) == [.close(gone, .hungUp), .writeClientList([])])
        // Not even to the next client in its slot.
        #expect(Self.welcomed(&again, pid: 201) == gone)
        #expect(again.timePassed(now: Self.at(2000)).isEmpty)
    }

    // MARK: output, timers, the client list

    @Test("a client whose unsent output would pass the limit is disconnected; one that reads is not")
    func outputLimitDisconnects() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions, maximumOutput: 400)
        let stuck = Self.welcomed(&session, pid: 10)
        let reader = Self.welcomed(&session, pid: 11)
        let welcomeSize = Self.size(.welcome(version: 3, clientID: ClientID(1)))
        #expect(session.outputWritten(welcomeSize, to: reader).isEmpty)
        let grantSize = Self.size(.grant(RequestID(1), paths: ["/r"]))
        var id: UInt64 = 1
        var closed = false
        for _ in 0..<100 {
            let actions = session.frameReceived(Self.request(id, "/r", writes: false), from: stuck, now: Self.at(1))
            if actions.contains(.close(stuck, .outputLimit)) {
                // The grant that did not fit is not sent.
                #expect(actions == [.close(stuck, .outputLimit), .writeClientList([])])
                closed = true
                break
            }
            id += 1
        }
        #expect(closed)
        // It was cut exactly at the frame that would have passed the limit.
        #expect(welcomeSize + Int(id) * grantSize > 400)
        #expect(welcomeSize + Int(id - 1) * grantSize <= 400)
        for id in 1...UInt64(50) {
            let actions = session.frameReceived(Self.request(id, "/r", writes: false), from: reader, now: Self.at(2))
            #expect(actions.last == Self.grant(id, "/r", to: reader))
            #expect(session.outputWritten(grantSize, to: reader).isEmpty)
        }
        #expect(session.openSlots == [reader])
    }

    @Test("the bytes the session counts for a frame are the bytes the driver queues for it")
    func countedSizeIsEncodedSize() throws {
        let frames: [WireFrame] = [
            .welcome(version: 3, clientID: ClientID(7)), .refused(reason: "no"),
            .grant(RequestID(1), paths: ["/a/b", "/c"], reportsPresence: true), .fail(RequestID(2), .timedOut("/x")),
            .deliver(
                PresenterDelivery(
                    client: ClientID(1), presenter: PresenterID(3), id: MessageID(4),
                    message: .didMove("/b"), request: RequestID(5))),
        ]
        for frame in frames {
            #expect(try WireEncoder.size(of: frame) == WireEncoder.encode(frame).count)
        }
    }

    @Test("a request deadline fires through the arbiter when its time comes")
    func timersFire() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let holder = Self.welcomed(&session, pid: 10)
        let waiter = Self.welcomed(&session, pid: 11)
        _ = session.frameReceived(Self.request(1, "/t", purpose: "a"), from: holder, now: Self.at(0))
        #expect(session.wakeUp(after: Self.at(0)) == nil)
        _ = session.frameReceived(
            Self.request(4, "/t", purpose: "b", timeout: 50_000_000), from: waiter, now: Self.at(10))
        #expect(session.wakeUp(after: Self.at(10)) == Self.at(60))
        #expect(session.timePassed(now: Self.at(59)).isEmpty)
        #expect(session.timePassed(now: Self.at(60)) == [.send(.fail(RequestID(4), .timedOut("/t")), to: waiter)])
        #expect(session.wakeUp(after: Self.at(60)) == nil)
        // A deadline that a grant beats is disarmed.
        _ = session.frameReceived(
            Self.request(5, "/t", purpose: "b", timeout: 50_000_000), from: waiter, now: Self.at(70))
        #expect(
            session.frameReceived(.accessEnded(RequestID(1)), from: holder, now: Self.at(80)) == [
                Self.grant(5, "/t", to: waiter)
            ])
        #expect(session.wakeUp(after: Self.at(80)) == nil)
        #expect(session.timePassed(now: Self.at(200)).isEmpty)
    }

    @Test("the client list names the clients that declared something, rewritten as they come and go")
    func clientList() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let quiet = Self.welcomed(&session, pid: 10)
        let declaring = Self.welcomed(&session, pid: 11)
        let twin = Self.welcomed(&session, pid: 11)
        #expect(
            session.frameReceived(
                .presenterRegistered(
                    PresenterID(1), purpose: PurposeID("a"), path: nil, observesUncoordinatedChanges: false),
                from: declaring, now: Self.at(1)) == [.writeClientList([11])])
        // Declared once: a second declaration writes nothing; a second connection of the same process is one pid.
        #expect(
            session.frameReceived(Self.request(1, "/f"), from: declaring, now: Self.at(1)) == [
                Self.grant(1, "/f", to: declaring)
            ])
        #expect(
            session.frameReceived(Self.request(1, "/g"), from: twin, now: Self.at(1)) == [
                .writeClientList([11]), Self.grant(1, "/g", to: twin),
            ])
        #expect(session.hungUp(quiet) == [.close(quiet, .hungUp)])
        #expect(session.hungUp(declaring) == [.close(declaring, .hungUp), .writeClientList([11])])
        #expect(session.hungUp(twin) == [.close(twin, .hungUp), .writeClientList([])])
        #expect(HostSession.clientListContents([3, 12]) == "3\n12\n")
        #expect(HostSession.pids(inClientList: "3\n\nx\n12\n") == [3, 12])
    }

    @Test("version notices reach only clients of a version that has them")
    func versionNoticesFollowTheAgreedVersion() {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions)
        let old = Self.welcomed(&session, pid: 10, version: 2)
        let new = Self.welcomed(&session, pid: 11, version: 3)
        for slot in [old, new] {
            _ = session.frameReceived(
                .presenterRegistered(
                    PresenterID(1), purpose: PurposeID("p\(slot)"), path: "/v", observesUncoordinatedChanges: false),
                from: slot, now: Self.at(1))
        }
        let actions = session.frameReceived(
            .versionsChanged("/v", VersionNotice(.gained, version: [1])), from: new, now: Self.at(2))
        #expect(actions.allSatisfy { if case .send(_, to: new) = $0 { true } else { false } })
        #expect(actions.count == 1)
    }
}
