import CoordinationArbiter
import Testing

@testable import FileCoordination

/// Seeded random schedules of clients connecting (the predecessor's among them), saying hello (with versions in
/// common or not), declaring, asking, ending, cancelling, replying to presenter messages, re-declaring, sending
/// garbage, ids too large, duplicate and late frames, stopping to read, dying at every step (mid-handshake and
/// during the grace period included) and of time passing, applied to a ``HostSession`` and checked against a
/// simple model of what must hold.
@Suite("Host session: random schedules against a model")
struct HostSessionScheduleTests {
    /// How many seeded schedules run.
    static let schedules = 1200
    /// The random steps of each schedule, before it settles.
    static let steps = 150

    /// Runs every schedule; the first that breaks an invariant is reported with its seed and trace.
    @Test func randomSchedulesKeepEveryInvariant() {
        var totals = HostSchedule.Counts()
        for index in 0..<Self.schedules {
            let seed = 0x484F_5354_5345_5353 &+ UInt64(index) &* 0x9E37_79B9
            var schedule = HostSchedule(seed: seed)
            schedule.run(steps: Self.steps)
            schedule.settle()
            if !schedule.failures.isEmpty {
                Issue.record(
                    Comment(
                        rawValue:
                            "schedule with seed \(seed) failed:\n"
                            + (schedule.trace.suffix(40) + schedule.failures).joined(separator: "\n")))
                return
            }
            totals.add(schedule.counts)
        }
        let summary = Comment(rawValue: "\(totals)")
        // The schedules must have exercised every rule, or the invariants went untested.
        #expect(totals.graceEndedByRedeclaring > Self.schedules / 20, summary)
        #expect(totals.graceEndedByExit > Self.schedules / 20, summary)
        #expect(totals.graceEndedByDeadline > Self.schedules / 20, summary)
        #expect(totals.replayed > Self.schedules, summary)
        #expect(totals.reclaimed > Self.schedules / 2, summary)
        #expect(totals.grants > Self.schedules * 5, summary)
        #expect(totals.deaths > Self.schedules, summary)
        #expect(totals.deathsInGrace > Self.schedules / 4, summary)
        #expect(totals.deathsMidHandshake > Self.schedules / 10, summary)
        #expect(totals.refusals > Self.schedules / 10, summary)
        #expect(totals.violations > Self.schedules / 2, summary)
        #expect(totals.outputCuts > Self.schedules / 20, summary)
        #expect(totals.timeouts > Self.schedules / 20, summary)
        #expect(totals.messages > Self.schedules, summary)
    }
}

/// One random schedule of a host session, its fake driver and clients, and the model they are checked against.
struct HostSchedule {
    /// What a schedule exercised, to check that the invariants were put to the test.
    struct Counts {
        var graceEndedByRedeclaring = 0
        var graceEndedByExit = 0
        var graceEndedByDeadline = 0
        var replayed = 0
        var reclaimed = 0
        var grants = 0
        var deaths = 0
        var deathsInGrace = 0
        var deathsMidHandshake = 0
        var refusals = 0
        var violations = 0
        var outputCuts = 0
        var timeouts = 0
        var messages = 0

        /// Adds another schedule's counts.
        mutating func add(_ other: Counts) {
            graceEndedByRedeclaring += other.graceEndedByRedeclaring
            graceEndedByExit += other.graceEndedByExit
            graceEndedByDeadline += other.graceEndedByDeadline
            replayed += other.replayed
            reclaimed += other.reclaimed
            grants += other.grants
            deaths += other.deaths
            deathsInGrace += other.deathsInGrace
            deathsMidHandshake += other.deathsMidHandshake
            refusals += other.refusals
            violations += other.violations
            outputCuts += other.outputCuts
            timeouts += other.timeouts
            messages += other.messages
        }
    }

    /// An access a client asked for.
    struct Access {
        let path: ItemPath
        let writes: Bool
        /// Asked during the grace period: it must not be answered before its end.
        var deferred = false
    }

    /// An access a client holds: granted by this host, or reclaimed from the predecessor.
    struct Hold {
        let path: ItemPath
        let writes: Bool
        /// Taken into account for conflicts: everything but a reclaim that came after the grace period (the
        /// arbiter records it, but a grant may already conflict with it; that is what the period bounds).
        let counts: Bool
    }

    /// One client process's connection, as the model sees it.
    struct Client {
        /// The process, and its coordinators' purpose (one per client, so that any two clients' writes conflict).
        let pid: Int32
        let purpose: PurposeID
        /// Welcomed, at this version.
        var welcomed = false
        var version: UInt16 = 0
        /// Refused: its refusal is being written; nothing more may be sent to it but the rest of it.
        var refused = false
        /// It sent something that gets it closed (possibly later: a duplicate id deferred during the grace period).
        var misbehaved = false
        /// It stopped reading.
        var stalled = false
        /// It registered a presenter or asked for access: the client list must name it.
        var declared = false
        /// Its next own id; its requests waiting and held, the ids it ended, its presenters, the messages it owes a reply.
        var nextLocal: UInt64 = 1
        var waiting: [UInt64: Access] = [:]
        var held: [UInt64: Hold] = [:]
        var ended: [UInt64] = []
        var presenters: Set<UInt64> = []
        var owedReplies: Set<MessageID> = []
        /// The predecessor's accesses still to reclaim (predecessor's clients only).
        var toReclaim: [Hold] = []
        /// It has sent `redeclared`.
        var redeclared = false
        /// The bytes sent to it that the fake driver has not reported written.
        var unsent = 0
    }

    static let paths: [ItemPath] = ["/a", "/b", "/c"]
    /// No frame but a snapshot or a refusal is larger (checked): a client is cut only once its queue is this close
    /// to the limit. (Snapshots go only to clients with nothing queued, and not in schedules of a small limit.)
    static let largestFrame = 64

    private var random: SplitMix64
    /// The session's output limit: a small one in some schedules, so that clients that stop reading get cut.
    private let limit: Int
    /// The time fed with every event.
    private var now = Instant(nanoseconds: 1_000_000_000)
    /// The session under test.
    private var session: HostSession
    /// The open connections by slot.
    private var clients: [UInt64: Client] = [:]
    /// Slots closed and not given out again: anything fed for them must change nothing.
    private var closedSlots: Set<UInt64> = []
    /// The predecessor's clients: alive and not connected yet, with what they held.
    private var predecessors: [Int32: [Hold]] = [:]
    /// Awaited processes that died, reported to the session as exited when time passes.
    private var deadAwaited: Set<Int32> = []
    /// The model's grace period: who is awaited, until when (nil once over).
    private var awaited: Set<Int32> = []
    private var graceDeadline: Instant?
    /// Numbers for new processes and purposes.
    private var nextPID: Int32 = 1000
    private var nextPurpose = 0
    /// The client list the session last asked to write.
    private var clientList: [Int32] = []
    /// The close reasons the current event may cause, by slot.
    private var expectedCloses: [UInt64: HostSession.CloseReason] = [:]

    /// The invariants broken, the events applied, and what the schedule exercised.
    private(set) var failures: [String] = []
    private(set) var trace: [String] = []
    private(set) var counts = Counts()

    /// A schedule drawn from `seed`.
    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
        limit = random.next(4) == 0 ? 240 : 4096
        // Most schedules start after a hand-over, with one to three of the predecessor's clients alive, holding
        // accesses that did not conflict under it.
        var awaiting: Set<Int32> = []
        if random.next(4) != 0 {
            var writers: Set<ItemPath> = []
            var readers: Set<ItemPath> = []
            for pid in Int32(100)..<Int32(101 + Int32(random.next(3))) {
                var holds: [Hold] = []
                for _ in 0..<random.next(3) {
                    let path = Self.paths[random.next(Self.paths.count)]
                    let writes = random.next(2) == 0
                    guard !writers.contains(path), !(writes && readers.contains(path)),
                        !holds.contains(where: { $0.path == path })
                    else { continue }
                    if writes { writers.insert(path) } else { readers.insert(path) }
                    holds.append(Hold(path: path, writes: writes, counts: true))
                }
                predecessors[pid] = holds
                awaiting.insert(pid)
            }
            awaited = awaiting
            graceDeadline = now.advanced(byNanoseconds: HostSession.gracePeriod)
        }
        session = HostSession(
            awaiting: awaiting, now: now, negotiation: VersionNegotiation(supported: 2...3), maximumOutput: limit)
    }

    /// Records a broken invariant.
    private mutating func fail(_ message: String) { failures.append(message) }

    /// Whether the model is in the grace period.
    private var inGrace: Bool { graceDeadline != nil }

    /// Runs `steps` random steps, stopping at the first failure.
    mutating func run(steps: Int) {
        for _ in 0..<steps {
            step()
            if !failures.isEmpty { return }
        }
    }

    // MARK: steps

    /// One random step.
    private mutating func step() {
        // During the grace period, the predecessor's clients mostly come back and re-declare.
        if inGrace && random.chance(30) {
            switch random.next(3) {
            case 0: accept()
            case 1: hello()
            default: reclaimOrRedeclare()
            }
            return
        }
        switch random.next(24) {
        case 0, 1: accept()
        case 2, 3: hello()
        case 4, 5, 6: request()
        case 7: end()
        case 8: cancel()
        case 9: registerPresenter()
        case 10, 11: reply()
        case 12, 13: reclaimOrRedeclare()
        case 14: hangUp()
        case 15: predecessorDies()
        case 16, 17: timePasses()
        case 18, 19: drain()
        case 20: misbehave()
        case 21: lateOrDuplicate()
        case 22: versionNotice()
        default: stallOrSnapshot()
        }
    }

    /// A connection is accepted: a new process's, or one of the predecessor's clients coming back.
    private mutating func accept() {
        let pid: Int32
        if let waiting = random.pick(predecessors.keys), random.chance(60) {
            pid = waiting
        } else {
            pid = nextPID
            nextPID += 1
        }
        let slot = session.connectionAccepted(pid: pid)
        trace.append("accept pid \(pid) -> slot \(slot)")
        if clients[slot] != nil { fail("slot \(slot) given to pid \(pid) while open") }
        closedSlots.remove(slot)
        nextPurpose += 1
        var client = Client(pid: pid, purpose: PurposeID("p\(nextPurpose)"))
        client.stalled = limit < 1000 && random.chance(50)
        if let holds = predecessors.removeValue(forKey: pid) { client.toReclaim = holds }
        clients[slot] = client
    }

    /// A client not yet welcomed says hello (versions in common or not), or breaks the protocol instead.
    private mutating func hello() {
        guard let slot = random.pick(clients.filter { !$0.value.welcomed && !$0.value.refused }.keys) else { return }
        let offer = random.next(20)
        let frame: WireFrame
        switch offer {
        case 0..<11: frame = .hello(version: 3, pid: 0, commandLine: "c", lowestVersion: 2)
        case 11..<14: frame = .hello(version: 2, pid: 0, commandLine: "c", lowestVersion: nil)
        case 14..<16: frame = .hello(version: 7, pid: 0, commandLine: "c", lowestVersion: 3)
        case 16..<18: frame = .hello(version: 9, pid: 0, commandLine: "c", lowestVersion: 5)
        default: frame = .redeclared
        }
        if offer >= 18 {
            expectedCloses[slot] = .protocolViolation
            counts.violations += 1
        }
        let actions = session.frameReceived(frame, from: slot, now: now)
        switch offer {
        case 0..<11, 14..<16:
            expect(actions, [.send(.welcome(version: 3, clientID: ClientID(slot)), to: slot)], "hello v3")
        case 11..<14:
            expect(actions, [.send(.welcome(version: 2, clientID: ClientID(slot)), to: slot)], "hello v2")
        case 16..<18:
            guard actions.count == 1, case .send(.refused, to: slot) = actions[0] else {
                fail("a hello with no version in common got \(actions)")
                return
            }
            clients[slot]?.refused = true
            expectedCloses[slot] = .refused
            counts.refusals += 1
        default: break
        }
        apply("hello \(frame) from \(slot)", actions)
    }

    /// A client asks for access (with a timeout sometimes, asked first a while ago sometimes).
    private mutating func request() {
        guard let slot = pickActive() else { return }
        let local = takeLocal(slot)
        let path = Self.paths[random.next(Self.paths.count)]
        let writes = random.chance(60)
        let timeout: UInt64? = random.chance(25) ? [20, 300, 1500][random.next(3)] * 1_000_000 : nil
        let age = UInt64(random.next(4)) * 100_000_000
        let deferred = inGrace
        clients[slot]?.waiting[local] = Access(path: path, writes: writes, deferred: deferred)
        clients[slot]?.declared = true
        let frame = WireFrame.accessRequested(
            RequestID(local), purpose: clients[slot]!.purpose,
            intents: [AccessIntent(path: path, access: writes ? .writing([]) : .reading([]))], timeout: timeout,
            nestedIn: nil, reclaim: false, age: age)
        apply(
            "request \(local) \(writes ? "write" : "read") \(path) from \(slot)",
            session.frameReceived(frame, from: slot, now: now))
    }

    /// A client ends an access it holds.
    private mutating func end() {
        guard let slot = pickActive(), let local = random.pick(clients[slot]!.held.keys) else { return }
        clients[slot]?.held[local] = nil
        clients[slot]?.ended.append(local)
        apply("end \(local) of \(slot)", session.frameReceived(.accessEnded(RequestID(local)), from: slot, now: now))
    }

    /// A client cancels a waiting request.
    private mutating func cancel() {
        guard let slot = pickActive(), let local = random.pick(clients[slot]!.waiting.keys) else { return }
        apply(
            "cancel \(local) of \(slot)",
            session.frameReceived(.cancelRequested(RequestID(local)), from: slot, now: now))
    }

    /// A client registers a presenter.
    private mutating func registerPresenter() {
        guard let slot = pickActive() else { return }
        let local = takeLocal(slot)
        clients[slot]?.presenters.insert(local)
        clients[slot]?.declared = true
        let frame = WireFrame.presenterRegistered(
            PresenterID(local), purpose: clients[slot]!.purpose, path: Self.paths[random.next(Self.paths.count)],
            observesUncoordinatedChanges: random.chance(30))
        apply("register presenter \(local) of \(slot)", session.frameReceived(frame, from: slot, now: now))
    }

    /// A client replies to a presenter message.
    private mutating func reply() {
        guard let slot = pickActive(), let message = random.pick(clients[slot]!.owedReplies) else { return }
        clients[slot]?.owedReplies.remove(message)
        apply(
            "reply \(message) from \(slot)",
            session.frameReceived(.presenterReplied(message, failure: nil), from: slot, now: now))
    }

    /// A predecessor's client takes back one of its accesses, or, when none is left, says it re-declared all.
    private mutating func reclaimOrRedeclare() {
        guard
            let slot = random.pick(
                clients.filter {
                    $0.value.welcomed && !$0.value.misbehaved && !$0.value.redeclared && awaitedOnce($0.value.pid)
                }.keys)
        else { return }
        if let hold = clients[slot]!.toReclaim.first {
            clients[slot]?.toReclaim.removeFirst()
            let local = takeLocal(slot)
            let inTime = inGrace
            clients[slot]?.held[local] = Hold(path: hold.path, writes: hold.writes, counts: inTime)
            clients[slot]?.declared = true
            counts.reclaimed += 1
            let frame = WireFrame.accessRequested(
                RequestID(local), purpose: clients[slot]!.purpose,
                intents: [AccessIntent(path: hold.path, access: hold.writes ? .writing([]) : .reading([]))],
                timeout: nil, nestedIn: nil, reclaim: true, age: 0)
            apply("reclaim \(local) \(hold.path) by \(slot)", session.frameReceived(frame, from: slot, now: now))
        } else {
            clients[slot]?.redeclared = true
            redeclared(slot)
        }
    }

    /// The client in `slot` sends `redeclared`: no longer awaited; the grace period ends if nobody else is, or its
    /// time is up.
    private mutating func redeclared(_ slot: UInt64) {
        let pid = clients[slot]!.pid
        var endsGrace = false
        if inGrace {
            awaited.remove(pid)
            endsGrace = awaited.isEmpty || graceDeadline! <= now
        }
        if endsGrace { counts.graceEndedByRedeclaring += 1 }
        apply(
            "redeclared from \(slot) (pid \(pid))", session.frameReceived(.redeclared, from: slot, now: now),
            endsGrace: endsGrace)
    }

    /// A client process dies: its connection hangs up (mid-handshake, during the grace period, anywhere).
    private mutating func hangUp() {
        guard let slot = random.pick(clients.keys) else { return }
        let client = clients[slot]!
        counts.deaths += 1
        if inGrace { counts.deathsInGrace += 1 }
        if !client.welcomed { counts.deathsMidHandshake += 1 }
        if awaited.contains(client.pid) { deadAwaited.insert(client.pid) }
        expectedCloses[slot] = .hungUp
        apply("hang-up of \(slot) (pid \(client.pid))", session.hungUp(slot))
        if clients[slot] != nil { fail("a hang-up did not close \(slot)") }
    }

    /// One of the predecessor's clients dies before it reconnected.
    private mutating func predecessorDies() {
        guard let pid = random.pick(predecessors.keys) else { return }
        predecessors[pid] = nil
        if awaited.contains(pid) { deadAwaited.insert(pid) }
        trace.append("predecessor's client \(pid) dies unconnected")
    }

    /// Time passes, from a millisecond to past the grace period.
    private mutating func timePasses() {
        now = now.advanced(byNanoseconds: [1, 10, 10, 50, 50, 100, 300, 300, 1100][random.next(9)] * 1_000_000)
        advance()
    }

    /// Feeds the time, with the awaited processes found dead; the model's grace period follows.
    private mutating func advance() {
        let exited = session.awaitedPIDs.intersection(deadAwaited)
        var endsGrace = false
        if inGrace {
            awaited.subtract(exited)
            if awaited.isEmpty {
                endsGrace = true
                counts.graceEndedByExit += 1
            } else if graceDeadline! <= now {
                endsGrace = true
                counts.graceEndedByDeadline += 1
            }
        }
        let actions = session.timePassed(now: now, exited: exited)
        counts.timeouts += actions.filter { if case .send(.fail(_, .timedOut), _) = $0 { true } else { false } }.count
        apply("time \(now) exited \(exited.sorted())", actions, endsGrace: endsGrace)
    }

    /// The fake driver writes some of a reading client's output.
    private mutating func drain() {
        guard let slot = random.pick(clients.filter { $0.value.unsent > 0 && !$0.value.stalled }.keys) else { return }
        let unsent = clients[slot]!.unsent
        let count = random.chance(50) ? unsent : 1 + random.next(unsent)
        clients[slot]?.unsent -= count
        if clients[slot]!.refused && clients[slot]!.unsent == 0 { expectedCloses[slot] = .refused }
        apply("drain \(count) of \(slot)", session.outputWritten(count, to: slot))
    }

    /// Input a well-behaved client never sends: garbage, an id too large, a second hello, a host's frame, a
    /// duplicate request id.
    private mutating func misbehave() {
        guard let slot = pickActive() else { return }
        counts.violations += 1
        let kind = random.next(5)
        clients[slot]?.misbehaved = true
        if kind == 4 {
            // A duplicate request id: the arbiter refuses it, at once or when the grace period replays it.
            guard
                let local = random.pick(
                    clients[slot]!.waiting.keys.filter { !clients[slot]!.waiting[$0]!.deferred }
                        + clients[slot]!.held.keys)
            else {
                clients[slot]?.misbehaved = false
                counts.violations -= 1
                return
            }
            let frame = WireFrame.accessRequested(
                RequestID(local), purpose: clients[slot]!.purpose,
                intents: [AccessIntent(path: "/z", access: .reading([]))],
                timeout: nil, nestedIn: nil, reclaim: false, age: 0)
            clients[slot]?.declared = true
            if !inGrace { expectedCloses[slot] = .protocolViolation }
            apply("duplicate request \(local) from \(slot)", session.frameReceived(frame, from: slot, now: now))
            if !inGrace && clients[slot] != nil { fail("a duplicate request id did not close \(slot)") }
            return
        }
        expectedCloses[slot] = .protocolViolation
        let actions: [HostSession.Action]
        switch kind {
        case 0:
            actions = session.bytesReceived(
                random.chance(50) ? [1, 0, 0, 0, 0xEE] : [0xFF, 0xFF, 0xFF, 0xFF], from: slot, now: now)
        case 1:
            actions = session.frameReceived(
                .cancelRequested(RequestID(HostSession.localMask + 1 + UInt64(random.next(1000)))), from: slot, now: now
            )
        case 2:
            actions = session.frameReceived(
                .hello(version: 3, pid: 0, commandLine: "c", lowestVersion: 2), from: slot, now: now)
        default:
            actions = session.frameReceived(.grant(RequestID(1), paths: ["/a"]), from: slot, now: now)
        }
        apply("violation \(kind) from \(slot)", actions)
        if clients[slot] != nil { fail("a protocol violation did not close \(slot)") }
    }

    /// Frames that change nothing: of a closed slot, of a refused client, a second cancel or end, a `redeclared`
    /// from a client that was not awaited.
    private mutating func lateOrDuplicate() {
        switch random.next(4) {
        case 0:
            guard let slot = random.pick(closedSlots) else { return }
            let actions =
                session.frameReceived(.cancelRequested(RequestID(1)), from: slot, now: now)
                + session.bytesReceived([1, 0, 0, 0, 0xEE], from: slot, now: now) + session.hungUp(slot)
                + session.outputWritten(5, to: slot)
            expect(actions, [], "late frames of closed slot \(slot)")
        case 1:
            guard let slot = random.pick(clients.filter { $0.value.refused }.keys) else { return }
            let actions = session.frameReceived(
                .hello(version: 3, pid: 0, commandLine: "c", lowestVersion: 2), from: slot, now: now)
            expect(actions, [], "hello from refused \(slot)")
        case 2:
            guard let slot = pickActive(), let local = clients[slot]!.ended.last else { return }
            apply(
                "second end \(local) of \(slot)",
                session.frameReceived(.accessEnded(RequestID(local)), from: slot, now: now))
        default:
            guard let slot = pickActive(), !awaitedOnce(clients[slot]!.pid) || clients[slot]!.redeclared else { return }
            redeclared(slot)
        }
    }

    /// A client of version 3 reports versions changed.
    private mutating func versionNotice() {
        guard let slot = pickActive(), clients[slot]!.version >= 3 else { return }
        let frame = WireFrame.versionsChanged(
            Self.paths[random.next(Self.paths.count)], VersionNotice(.gained, version: [7]))
        apply("version notice from \(slot)", session.frameReceived(frame, from: slot, now: now))
    }

    /// A client stops (or starts again) reading, or asks for a snapshot.
    private mutating func stallOrSnapshot() {
        guard let slot = pickActive() else { return }
        if random.chance(40) || limit < 1000 || clients[slot]!.unsent > 0 {
            // (No snapshot for a client with output queued: its size is not known before it is sent.)
            clients[slot]?.stalled.toggle()
            trace.append("slot \(slot) stalled: \(clients[slot]!.stalled)")
        } else {
            apply("snapshot for \(slot)", session.frameReceived(.snapshotRequest(tag: 1), from: slot, now: now))
        }
    }

    // MARK: settling

    /// Ends the grace period, then lets every client behave: read everything, reply to every message, end every
    /// access. Every request still waiting must then get its answer.
    mutating func settle() {
        guard failures.isEmpty else { return }
        for slot in clients.filter({ !$0.value.welcomed || $0.value.misbehaved || $0.value.refused }).keys.sorted() {
            expectedCloses[slot] = .hungUp
            apply("settle: hang-up of \(slot)", session.hungUp(slot))
        }
        predecessors = [:]
        for _ in 0..<20 where failures.isEmpty {
            now = now.advanced(byNanoseconds: 2_000_000_000)
            advance()
            for slot in clients.keys.sorted() {
                guard clients[slot] != nil else { continue }
                clients[slot]?.stalled = false
                if let unsent = clients[slot]?.unsent, unsent > 0 {
                    clients[slot]?.unsent = 0
                    apply("settle: drain \(slot)", session.outputWritten(unsent, to: slot))
                }
                for message in (clients[slot]?.owedReplies ?? []).sorted() {
                    clients[slot]?.owedReplies.remove(message)
                    apply(
                        "settle: reply \(message)",
                        session.frameReceived(.presenterReplied(message, failure: nil), from: slot, now: now))
                }
                let held = clients[slot].map { Array($0.held.keys) } ?? []
                for local in held.sorted() {
                    clients[slot]?.held[local] = nil
                    apply(
                        "settle: end \(local) of \(slot)",
                        session.frameReceived(.accessEnded(RequestID(local)), from: slot, now: now))
                }
            }
            if clients.values.allSatisfy({ $0.waiting.isEmpty && $0.owedReplies.isEmpty && $0.held.isEmpty }) { break }
        }
        if session.isInGracePeriod { fail("the grace period outlasted its deadline") }
        for (slot, client) in clients where !client.waiting.isEmpty {
            fail("slot \(slot)'s requests \(client.waiting.keys.sorted()) still wait after everything was released")
        }
    }

    // MARK: the model

    /// The client's next own id.
    private mutating func takeLocal(_ slot: UInt64) -> UInt64 {
        defer { clients[slot]?.nextLocal += 1 }
        return clients[slot]!.nextLocal
    }

    /// A welcomed client that behaves, still connected.
    private mutating func pickActive() -> UInt64? {
        random.pick(clients.filter { $0.value.welcomed && !$0.value.misbehaved }.keys)
    }

    /// Whether `pid` was one of the predecessor's clients (the session may await it).
    private func awaitedOnce(_ pid: Int32) -> Bool { pid >= 100 && pid < 1000 }

    /// Records a failure unless `actions` are `expected`.
    private mutating func expect(_ actions: [HostSession.Action], _ expected: [HostSession.Action], _ label: String) {
        if actions != expected { fail("\(label): got \(actions), expected \(expected)") }
    }

    /// Applies the session's actions to the model, rejecting those that are impossible; `endsGrace` if the event
    /// ends the grace period (its replay may answer requests).
    private mutating func apply(_ label: String, _ actions: [HostSession.Action], endsGrace: Bool = false) {
        trace.append("\(label) -> \(actions)")
        defer { expectedCloses = [:] }
        if endsGrace {
            counts.replayed += clients.values.reduce(0) { $0 + $1.waiting.values.filter(\.deferred).count }
            graceDeadline = nil
            awaited = []
            for slot in Array(clients.keys) {
                for local in Array(clients[slot]!.waiting.keys) { clients[slot]?.waiting[local]?.deferred = false }
            }
        }
        for action in actions {
            switch action {
            case .send(let frame, let slot):
                guard clients[slot] != nil else {
                    fail("\(label): send \(frame.type) to slot \(slot), which is not open")
                    continue
                }
                let size = (try? WireEncoder.size(of: frame)) ?? 0
                clients[slot]?.unsent += size
                if size > Self.largestFrame, frame.type != .snapshotResponse, frame.type != .refused {
                    fail("\(label): a \(frame.type) frame of \(size) bytes, more than the model allows for")
                }
                receive(frame, slot, label)
            case .createBoard:
                fail("\(label): a board asked for by a session made without one")
            case .close(let slot, let reason):
                guard let client = clients.removeValue(forKey: slot) else {
                    fail("\(label): close of slot \(slot), which is not open")
                    continue
                }
                closedSlots.insert(slot)
                let allowed =
                    expectedCloses[slot] == reason || (reason == .protocolViolation && client.misbehaved)
                    || (reason == .outputLimit && client.unsent > limit - Self.largestFrame)
                if !allowed {
                    fail(
                        "\(label): slot \(slot) closed for \(reason), expected \(String(describing: expectedCloses[slot]))"
                    )
                }
                if reason == .outputLimit { counts.outputCuts += 1 }
                if awaited.contains(client.pid) && reason != .hungUp {
                    // Its process lives on: it will connect again and re-declare.
                    predecessors[client.pid] =
                        client.held.values.map { Hold(path: $0.path, writes: $0.writes, counts: true) }
                        + client.toReclaim
                }
            case .writeClientList(let pids):
                clientList = pids
            }
        }
        let declared = Set(clients.values.filter(\.declared).map(\.pid)).sorted()
        if clientList != declared {
            fail("\(label): the client list is \(clientList), the declared clients are \(declared)")
        }
        if session.isInGracePeriod != inGrace {
            fail("\(label): the session's grace period is \(session.isInGracePeriod), the model's \(inGrace)")
        }
        if session.openSlots != clients.keys.sorted() {
            fail("\(label): the session's slots are \(session.openSlots), the model's \(clients.keys.sorted())")
        }
        checkConflicts(label)
    }

    /// Applies one frame sent to a client.
    private mutating func receive(_ frame: WireFrame, _ slot: UInt64, _ label: String) {
        guard let client = clients[slot] else { return }
        if client.unsent > limit { fail("\(label): slot \(slot) has \(client.unsent) bytes queued, over the limit") }
        switch frame {
        case .welcome(let version, _):
            if client.welcomed { fail("\(label): a second welcome for \(slot)") }
            clients[slot]?.welcomed = true
            clients[slot]?.version = version
        case .refused:
            if !client.refused { fail("\(label): \(slot) refused unexpectedly") }
        case .grant(let request, _, _):
            counts.grants += 1
            guard let access = client.waiting[request.rawValue] else {
                fail("\(label): grant of \(request) to \(slot), which does not wait for it")
                return
            }
            if access.deferred { fail("\(label): \(request) of \(slot) granted during the grace period") }
            clients[slot]?.waiting[request.rawValue] = nil
            clients[slot]?.held[request.rawValue] = Hold(path: access.path, writes: access.writes, counts: true)
        case .fail(let request, _):
            guard let access = client.waiting[request.rawValue] else {
                fail("\(label): failure of \(request) to \(slot), which does not wait for it")
                return
            }
            if access.deferred { fail("\(label): \(request) of \(slot) failed during the grace period") }
            clients[slot]?.waiting[request.rawValue] = nil
        case .deliver(let delivery):
            counts.messages += 1
            if !client.presenters.contains(delivery.presenter.rawValue) {
                fail("\(label): message for \(delivery.presenter), which \(slot) did not register")
            }
            if !VersionNegotiation.carries(frame, at: client.version) {
                fail("\(label): \(delivery.message) sent to \(slot) of version \(client.version)")
            }
            if delivery.message.expectsReply { clients[slot]?.owedReplies.insert(delivery.id) }
        case .snapshotResponse:
            break
        default:
            fail("\(label): \(frame.type) sent to a client")
        }
    }

    /// No two accesses of different clients that conflict (same item, one writes) are held at once.
    private mutating func checkConflicts(_ label: String) {
        var holders: [ItemPath: [(slot: UInt64, writes: Bool)]] = [:]
        for (slot, client) in clients {
            for hold in client.held.values where hold.counts {
                holders[hold.path, default: []].append((slot, hold.writes))
            }
        }
        for (path, list) in holders {
            for first in list.indices {
                for second in list.indices where first < second {
                    guard list[first].slot != list[second].slot, list[first].writes || list[second].writes else {
                        continue
                    }
                    fail("\(label): conflicting accesses to \(path) held at once: \(list)")
                    return
                }
            }
        }
    }
}
