import CoordinationArbiter
import Testing

@testable import FileCoordination

/// Seeded random schedules of client events, connection reports, host frames (welcome, refusal, grants,
/// duplicates, late frames of closed connections, garbage), host deaths at every step of a hand-over and the
/// passing of time, applied to an ``ArbiterSession`` and checked against a simple model of what must hold.
@Suite("Arbiter session: random schedules against a model")
struct ArbiterSessionScheduleTests {
    static let schedules = 1500
    static let steps = 80

    @Test func randomSchedulesKeepEveryInvariant() {
        var welcomes = 0
        var deaths = 0
        var grants = 0
        for index in 0..<Self.schedules {
            let seed = 0x5155_4952_4553_5353 &+ UInt64(index) &* 0x9E37_79B9
            var schedule = SessionSchedule(seed: seed)
            schedule.run(steps: Self.steps)
            schedule.settle()
            if !schedule.failures.isEmpty {
                Issue.record(
                    Comment(
                        rawValue:
                            "schedule with seed \(seed) failed:\n"
                            + (schedule.trace.suffix(30) + schedule.failures).joined(separator: "\n")))
                return
            }
            welcomes += schedule.welcomes
            deaths += schedule.deaths
            grants += schedule.grants
        }
        // The schedules must have exercised hand-overs, or the invariants went untested.
        #expect(welcomes > Self.schedules)
        #expect(deaths > Self.schedules)
        #expect(grants > Self.schedules)
    }
}

/// One random schedule and the model it is checked against.
struct SessionSchedule {
    private var random: SplitMix64
    private var session = ArbiterSession()
    private var now = Instant(nanoseconds: 1_000_000_000)

    // The model: what the client did, and what the fake driver and host know.
    private var presenters: Set<PresenterID> = []
    private var waiting: Set<RequestID> = []
    private var held: Set<RequestID> = []
    private var cancelled: Set<RequestID> = []
    /// Every request that got its outcome (grant, failure, unavailable): none may get two.
    private var finished: Set<RequestID> = []
    private var nextID: UInt64 = 1
    /// The attempt the driver was asked to connect and has not reported yet.
    private var connecting: UInt64?
    /// The socket open for an attempt, and whether its host welcomed it.
    private var open: (attempt: UInt64, welcomed: Bool)?
    /// The requests the current host was told of (it may grant or fail those only).
    private var hostKnows: Set<RequestID> = []
    private var everWelcomed = false
    private var closedAttempts: [UInt64] = []

    private(set) var failures: [String] = []
    private(set) var trace: [String] = []
    private(set) var welcomes = 0
    /// The newest version the last connect offered: the host welcomes at it.
    private var offered = WireProtocol.version
    private(set) var deaths = 0
    private(set) var grants = 0

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    private mutating func fail(_ message: String) { failures.append(message) }

    mutating func run(steps: Int) {
        for _ in 0..<steps {
            step()
            if !failures.isEmpty { return }
        }
    }

    /// Lets a healthy host answer everything: every request left waiting must then get an outcome.
    mutating func settle() {
        for _ in 0..<50 where failures.isEmpty {
            if let attempt = connecting {
                connecting = nil
                apply("settle: connected \(attempt)", session.connected(attempt: attempt, now: now))
                if open == nil { open = (attempt, false) }
            } else if let socket = open, !socket.welcomed {
                welcome(socket.attempt)
            } else if let socket = open, let request = hostKnows.intersection(waiting).min() {
                hostGrants(request, socket.attempt)
            } else if case .waitingToRetry(_, let retryAt, _) = session.phase {
                now = retryAt
                apply("settle: time", session.timePassed(now: now))
            } else if !waiting.isEmpty && open == nil {
                // Idle after a failure: the next request starts a new series.
                submit(request: true)
            } else {
                break
            }
        }
        if failures.isEmpty && !waiting.isEmpty {
            fail("requests still waiting after the host answered everything: \(waiting.sorted())")
        }
    }

    private mutating func step() {
        switch random.next(16) {
        case 0, 1: submit(request: true)
        case 2:
            let id = PresenterID(nextID)
            nextID += 1
            presenters.insert(id)
            apply(
                "register \(id)",
                session.eventSubmitted(
                    .presenterRegistered(id, purpose: PurposeID("p"), path: "/p", observesUncoordinatedChanges: false),
                    now: now))
        case 3:
            guard let id = random.pick(presenters) else { return }
            presenters.remove(id)
            apply("remove \(id)", session.eventSubmitted(.presenterRemoved(id), now: now))
        case 4:
            guard let request = random.pick(held) else { return }
            held.remove(request)
            apply("end \(request)", session.eventSubmitted(.accessEnded(request, presence: []), now: now))
        case 5:
            guard let request = random.pick(waiting) else { return }
            cancelled.insert(request)
            apply("cancel \(request)", session.eventSubmitted(.cancelRequested(request), now: now))
        case 6, 7:
            guard let attempt = connecting else { return }
            connecting = nil
            if random.chance(70) {
                apply("connected \(attempt)", session.connected(attempt: attempt, now: now))
                if open == nil { open = (attempt, false) }
            } else {
                let retryable = random.chance(70)
                apply(
                    "connect \(attempt) failed, retryable \(retryable)",
                    session.connectFailed(
                        attempt: attempt, reason: "no", retryable: retryable, now: now))
            }
        case 8, 9:
            guard let socket = open else { return }
            if !socket.welcomed {
                if random.chance(85) {
                    welcome(socket.attempt)
                } else {
                    hostFrame(.refused(reason: "old"), socket.attempt, label: "refused")
                }
            } else if let request = random.pick(hostKnows.intersection(waiting)) {
                if cancelled.contains(request) && random.chance(50) {
                    hostFrame(.fail(request, .cancelled), socket.attempt, label: "fail \(request)")
                    if failures.isEmpty && !waiting.contains(request) && !finished.contains(request) {
                        fail("a failure frame for \(request) gave no outcome")
                    }
                } else {
                    hostGrants(request, socket.attempt)
                }
            }
        case 10:
            // Duplicate grants, grants of unknown requests, late frames of closed connections: no effect.
            let request = random.pick(held.union(finished)) ?? RequestID(999_999)
            let current = open.flatMap { $0.welcomed ? $0.attempt : nil }
            let attempt = random.chance(50) ? (current ?? 0) : (closedAttempts.last ?? 0)
            let actions = session.frameReceived(.grant(request, paths: ["/x"]), attempt: attempt, now: now)
            if actions.contains(where: { if case .perform = $0 { true } else { false } }) {
                fail("a duplicate or late grant of \(request) on attempt \(attempt) had an effect: \(actions)")
            }
            apply("late grant \(request) on \(attempt)", actions)
        case 11:
            // The host dies (or the connection breaks), whatever stage the hand-over is at.
            guard let socket = open else { return }
            deaths += 1
            apply("lost \(socket.attempt)", session.connectionLost(attempt: socket.attempt, reason: "eof", now: now))
            if open?.attempt == socket.attempt { fail("the session did not close lost socket \(socket.attempt)") }
        case 12:
            guard let socket = open, socket.welcomed, random.chance(30) else { return }
            deaths += 1
            hostFrame(.welcome(version: 1, clientID: ClientID(1)), socket.attempt, label: "garbage welcome")
            if open?.attempt == socket.attempt { fail("a protocol violation did not close the socket") }
        case 13, 14:
            now = now.advanced(
                byNanoseconds: [100_000, 600_000, 50_000_000, 900_000_000, 2_100_000_000][
                    random.next(5)])
            apply("time \(now)", session.timePassed(now: now))
        default:
            // A presenter message, and its reply.
            guard let socket = open, socket.welcomed, let presenter = random.pick(presenters) else { return }
            let message = MessageID(nextID)
            nextID += 1
            let delivery = PresenterDelivery(
                client: ClientID(1), presenter: presenter, id: message, message: .relinquishToWriter,
                request: RequestID(0))
            hostFrame(.deliver(delivery), socket.attempt, label: "deliver \(message)")
            apply("reply \(message)", session.eventSubmitted(.presenterReplied(message, failure: nil), now: now))
        }
    }

    private mutating func submit(request: Bool) {
        let id = RequestID(nextID)
        nextID += 1
        waiting.insert(id)
        apply(
            "request \(id)",
            session.eventSubmitted(
                .accessRequested(
                    id, purpose: PurposeID("p"), intents: [AccessIntent(path: "/f", access: .reading([]))],
                    deadline: nil, nestedIn: nil), now: now))
    }

    private mutating func welcome(_ attempt: UInt64) {
        welcomes += 1
        let expectedPresenters = presenters
        let expectedHeld = held
        let expectedWaiting = waiting
        let redeclaring = everWelcomed
        hostKnows = []
        let actions = session.frameReceived(
            .welcome(version: offered, clientID: ClientID(1)), attempt: attempt, now: now)
        open?.welcomed = true
        everWelcomed = true
        // The declarations: exactly the presenters and accesses of the model, then `redeclared` after a hand-over.
        var declaredPresenters: Set<PresenterID> = []
        var reclaimed: Set<RequestID> = []
        var resubmitted: Set<RequestID> = []
        var sawRedeclared = false
        for action in actions {
            guard case .send(let frame, _) = action else { continue }
            switch frame {
            case .presenterRegistered(let id, _, _, _): declaredPresenters.insert(id)
            case .accessRequested(let id, _, _, _, _, let reclaim, _):
                if reclaim { reclaimed.insert(id) } else { resubmitted.insert(id) }
            case .redeclared: sawRedeclared = true
            default: break
            }
        }
        if declaredPresenters != expectedPresenters {
            fail("welcome declared presenters \(declaredPresenters.sorted()), expected \(expectedPresenters.sorted())")
        }
        if reclaimed != expectedHeld {
            fail("welcome reclaimed \(reclaimed.sorted()), expected \(expectedHeld.sorted())")
        }
        if resubmitted != expectedWaiting {
            fail("welcome submitted \(resubmitted.sorted()), expected \(expectedWaiting.sorted())")
        }
        if sawRedeclared != redeclaring { fail("redeclared sent: \(sawRedeclared), expected \(redeclaring)") }
        apply("welcome \(attempt)", actions)
    }

    private mutating func hostGrants(_ request: RequestID, _ attempt: UInt64) {
        hostFrame(.grant(request, paths: ["/f"]), attempt, label: "grant \(request)")
        if failures.isEmpty && !held.contains(request) { fail("a grant of waiting \(request) was not performed") }
    }

    private mutating func hostFrame(_ frame: WireFrame, _ attempt: UInt64, label: String) {
        apply(label, session.frameReceived(frame, attempt: attempt, now: now))
    }

    /// Applies the session's actions to the model, rejecting those that are impossible.
    private mutating func apply(_ label: String, _ actions: [ArbiterSession.Action]) {
        trace.append("\(label) -> \(actions)")
        for action in actions {
            switch action {
            case .connect(let attempt, let offer):
                if connecting != nil { fail("connect \(attempt) while attempt \(connecting!) is under way") }
                if let socket = open { fail("connect \(attempt) while the socket of \(socket.attempt) is open") }
                connecting = attempt
                offered = offer.newest
            case .send(let frame, let attempt):
                guard let socket = open, socket.attempt == attempt,
                    socket.welcomed || frame == .redeclared
                        || Self.isDeclaration(frame)
                else {
                    fail("send \(frame.type) on attempt \(attempt), which is not the open, welcomed socket")
                    continue
                }
                if case .accessRequested(let id, _, _, _, _, _, _) = frame { hostKnows.insert(id) }
                if case .accessEnded(let id, _) = frame { hostKnows.remove(id) }
            case .close(let attempt):
                if open?.attempt == attempt {
                    open = nil
                    closedAttempts.append(attempt)
                    hostKnows = []
                }
            case .perform(let clientAction):
                switch clientAction {
                case .grant(let request, _, _):
                    guard waiting.remove(request) != nil, finished.insert(request).inserted else {
                        fail("grant of \(request), which is not waiting")
                        continue
                    }
                    held.insert(request)
                    grants += 1
                case .fail(let request, _), .unavailable(let request, _):
                    guard waiting.remove(request) != nil, finished.insert(request).inserted else {
                        fail("outcome for \(request), which is not waiting: \(clientAction)")
                        continue
                    }
                case .deliver: break
                }
            case .answerSnapshot: break
            case .useBoard: fail("\(label): a board to use, and no host named one")
            }
        }
        if case .idle(let unavailable) = session.phase, unavailable != nil, !waiting.isEmpty {
            fail("the session gave up but requests \(waiting.sorted()) got no outcome")
        }
        if case .connected(let attempt) = session.phase, open?.attempt != attempt || open?.welcomed != true {
            fail("the session is connected on \(attempt) but the model's socket is \(String(describing: open))")
        }
    }

    private static func isDeclaration(_ frame: WireFrame) -> Bool {
        switch frame {
        case .presenterRegistered, .accessRequested, .cancelRequested, .snapshotRequest: return true
        default: return false
        }
    }
}
