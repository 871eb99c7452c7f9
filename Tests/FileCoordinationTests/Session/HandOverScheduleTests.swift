import CoordinationArbiter
import Testing

@testable import FileCoordination

/// Seeded random schedules of clients of version 4 queueing for two items on a host session with a board (in
/// private memory): requests with and without timeouts, ends by frame or fired on the board (silent or
/// announced), grants taken there, waiting on the board or not, cancels, moves reported, deaths, time passing and
/// the driver's turns (some of them idle), checked against a model: no two clients hold conflicting accesses at
/// once, a grant (by frame or on the board) only ever answers a request that waits, and once everything is
/// released nothing waits.
@Suite("Hand-over board: random schedules against a model")
struct HandOverScheduleTests {
    static let schedules = 600
    static let steps = 200

    @Test func randomSchedulesKeepEveryInvariant() {
        var totals = BoardSchedule.Counts()
        for index in 0..<Self.schedules {
            let seed = 0x4241_544F_4E53 &+ UInt64(index) &* 0x9E37_79B9
            var schedule = BoardSchedule(seed: seed)
            schedule.run(steps: Self.steps)
            schedule.settle()
            if !schedule.failures.isEmpty {
                Issue.record(
                    Comment(
                        rawValue: "schedule with seed \(seed) failed:\n"
                            + (schedule.trace.suffix(60) + schedule.failures).joined(separator: "\n")))
                return
            }
            totals.add(schedule.counts)
        }
        let summary = Comment(rawValue: "\(totals)")
        // Every path must have been taken, or the invariants went untested there.
        #expect(totals.silentEnds > Self.schedules, summary)
        #expect(totals.announcedEnds > Self.schedules / 4, summary)
        #expect(totals.boardGrants > Self.schedules / 2, summary)
        #expect(totals.frameGrants > Self.schedules * 5, summary)
        #expect(totals.cancels > Self.schedules, summary)
        #expect(totals.timeouts > Self.schedules / 10, summary)
        #expect(totals.moves > Self.schedules, summary)
        #expect(totals.deaths > Self.schedules, summary)
    }
}

/// One random schedule: a host session with a board, its clients as the model sees them.
struct BoardSchedule {
    struct Counts {
        var silentEnds = 0
        var announcedEnds = 0
        var boardGrants = 0
        var frameGrants = 0
        var cancels = 0
        var timeouts = 0
        var moves = 0
        var deaths = 0

        mutating func add(_ other: Counts) {
            silentEnds += other.silentEnds
            announcedEnds += other.announcedEnds
            boardGrants += other.boardGrants
            frameGrants += other.frameGrants
            cancels += other.cancels
            timeouts += other.timeouts
            moves += other.moves
            deaths += other.deaths
        }
    }

    struct Access: Equatable {
        let path: ItemPath
        let writes: Bool
    }

    struct Client {
        let purpose: PurposeID
        var generation: UInt32?
        var nextLocal: UInt64 = 1
        var waiting: [UInt64: Access] = [:]
        var held: [UInt64: Access] = [:]
    }

    static let paths: [ItemPath] = ["/a", "/b"]

    private var random: SplitMix64
    private var now = Instant(nanoseconds: 1_000_000_000)
    private var session: HostSession
    private let board: HandOverBoard
    private var clients: [UInt64: Client] = [:]
    private var nextPID: Int32 = 100
    private(set) var failures: [String] = []
    private(set) var trace: [String] = []
    private(set) var counts = Counts()

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
        // A failed mapping of 64 KiB in a test is a broken machine: the schedule fails at its first step.
        board = (try? HandOverBoard.anonymous())!
        session = HostSession(
            now: now, negotiation: VersionNegotiation(supported: 2...4), createsBoard: true)
    }

    private mutating func fail(_ message: String) { failures.append(message) }

    mutating func run(steps: Int) {
        for _ in 0..<steps where failures.isEmpty {
            step()
            guard failures.isEmpty else { return }
            // Clients with requests waiting mostly wait on the board; the driver ends each turn as the real one.
            for (slot, client) in clients where client.generation != nil {
                board.setPresence(!client.waiting.isEmpty && random.chance(85) ? .spinning : .absent, cell: slot)
            }
            apply("driver's turn", session.handOver(idle: random.chance(15)))
        }
    }

    private mutating func step() {
        switch random.next(20) {
        case 0: connect()
        case 1, 2, 3, 4, 5: request()
        case 6, 7, 8, 9: end()
        case 10, 11, 12, 13: take()
        case 14: cancel()
        case 15: move()
        case 16: die()
        case 17: time()
        default: if clients.count < 2 { connect() } else { take() }
        }
    }

    private mutating func connect() {
        guard clients.count < 5 else { return }
        let pid = nextPID
        nextPID += 1
        let slot = session.connectionAccepted(pid: pid)
        clients[slot] = Client(purpose: PurposeID("p\(pid)"))
        apply(
            "connect \(slot)",
            session.frameReceived(
                .hello(version: 4, pid: pid, commandLine: "c", lowestVersion: 2), from: slot, now: now))
    }

    private mutating func request() {
        guard let slot = random.pick(clients.keys) else { return }
        let local = clients[slot]!.nextLocal
        clients[slot]?.nextLocal += 1
        let access = Access(path: random.chance(75) ? Self.paths[0] : Self.paths[1], writes: random.chance(75))
        clients[slot]?.waiting[local] = access
        let timeout: UInt64? = random.chance(15) ? [5, 50][random.next(2)] * 1_000_000 : nil
        let frame = WireFrame.accessRequested(
            RequestID(local), purpose: clients[slot]!.purpose,
            intents: [AccessIntent(path: access.path, access: access.writes ? .writing([]) : .reading([]))],
            timeout: timeout, nestedIn: nil, reclaim: false, age: 0)
        apply("request \(local) \(access) of \(slot)", session.frameReceived(frame, from: slot, now: now))
    }

    private mutating func end() {
        guard let slot = random.pick(clients.filter { !$0.value.held.isEmpty }.keys),
            let local = random.pick(clients[slot]!.held.keys)
        else { return }
        clients[slot]?.held[local] = nil
        if let generation = clients[slot]?.generation, random.chance(85) {
            switch board.fire(cell: slot, generation: generation, access: RequestID(local)) {
            case .silent:
                counts.silentEnds += 1
                trace.append("end \(local) of \(slot) on the board, silently")
                return
            case .announced:
                counts.announcedEnds += 1
                trace.append("end \(local) of \(slot) on the board, announced")
            case .none:
                break
            }
        }
        apply("end \(local) of \(slot)", session.frameReceived(.accessEnded(RequestID(local)), from: slot, now: now))
    }

    private mutating func take() {
        guard let slot = random.pick(clients.filter { $0.value.generation != nil && !$0.value.waiting.isEmpty }.keys),
            let generation = clients[slot]?.generation
        else { return }
        board.setPresence(.spinning, cell: slot)
        guard let request = board.take(cell: slot, generation: generation) else { return }
        counts.boardGrants += 1
        granted(request.rawValue, slot, "take \(request) on the board by \(slot)")
    }

    private mutating func cancel() {
        guard let slot = random.pick(clients.filter { !$0.value.waiting.isEmpty }.keys),
            let local = random.pick(clients[slot]!.waiting.keys)
        else { return }
        counts.cancels += 1
        apply(
            "cancel \(local) of \(slot)", session.frameReceived(.cancelRequested(RequestID(local)), from: slot, now: now))
    }

    /// A holder reports a move of an item nobody asks for (the host may not have predicted with it).
    private mutating func move() {
        guard let slot = random.pick(clients.filter { $0.value.held.values.contains(where: \.writes) }.keys),
            let local = random.pick(clients[slot]!.held.filter(\.value.writes).keys)
        else { return }
        counts.moves += 1
        apply(
            "move by \(local) of \(slot)",
            session.frameReceived(.itemMoved(RequestID(local), from: "/x/1", to: "/x/2"), from: slot, now: now))
    }

    private mutating func die() {
        guard let slot = random.pick(clients.keys) else { return }
        counts.deaths += 1
        apply("death of \(slot)", session.hungUp(slot))
    }

    private mutating func time() {
        now = now.advanced(byNanoseconds: [1, 10, 60][random.next(3)] * 1_000_000)
        apply("time \(now)", session.timePassed(now: now))
    }

    /// Everything held is ended by frame, time passes, the driver idles: nothing may wait afterwards.
    mutating func settle() {
        guard failures.isEmpty else { return }
        for slot in clients.keys { board.setPresence(.absent, cell: slot) }
        for _ in 0..<30 where failures.isEmpty {
            apply("settle: idle turn", session.handOver(idle: true))
            for slot in clients.keys.sorted() {
                for local in (clients[slot]?.held.keys.sorted() ?? []) {
                    clients[slot]?.held[local] = nil
                    apply(
                        "settle: end \(local) of \(slot)",
                        session.frameReceived(.accessEnded(RequestID(local)), from: slot, now: now))
                }
            }
            now = now.advanced(byNanoseconds: 100_000_000)
            apply("settle: time", session.timePassed(now: now))
            if clients.values.allSatisfy({ $0.waiting.isEmpty && $0.held.isEmpty }) { break }
        }
        for (slot, client) in clients where !client.waiting.isEmpty {
            fail("slot \(slot)'s requests \(client.waiting.keys.sorted()) still wait after everything was released")
        }
    }

    // MARK: the model

    private mutating func granted(_ local: UInt64, _ slot: UInt64, _ label: String) {
        trace.append(label)
        guard let access = clients[slot]?.waiting.removeValue(forKey: local) else {
            fail("\(label): \(local) of \(slot) granted, which does not wait")
            return
        }
        clients[slot]?.held[local] = access
        checkConflicts(label)
    }

    private mutating func apply(_ label: String, _ actions: [HostSession.Action]) {
        trace.append("\(label) -> \(actions)")
        for action in actions {
            switch action {
            case .send(let frame, let slot):
                guard clients[slot] != nil else {
                    fail("\(label): \(frame.type) sent to \(slot), which is closed")
                    continue
                }
                switch frame {
                case .welcome: break
                case .handOverBoard(_, let cell, let generation):
                    if cell != slot { fail("\(label): cell \(cell) named to \(slot)") }
                    clients[slot]?.generation = generation
                case .grant(let request, _, _):
                    counts.frameGrants += 1
                    granted(request.rawValue, slot, "\(label): grant of \(request) to \(slot)")
                case .fail(let request, let failure):
                    if case .timedOut = failure { counts.timeouts += 1 }
                    if clients[slot]?.waiting.removeValue(forKey: request.rawValue) == nil {
                        fail("\(label): failure of \(request) to \(slot), which does not wait")
                    }
                default:
                    fail("\(label): \(frame.type) sent to \(slot)")
                }
            case .close(let slot, _):
                clients[slot] = nil
            case .createBoard:
                apply("\(label): board created", session.boardCreated(board))
            case .writeClientList:
                break
            }
        }
        checkConflicts(label)
    }

    private mutating func checkConflicts(_ label: String) {
        let holds = clients.flatMap { slot, client in client.held.values.map { (slot, $0) } }
        for (index, first) in holds.enumerated() {
            for second in holds[(index + 1)...]
            where first.0 != second.0 && first.1.path == second.1.path && (first.1.writes || second.1.writes) {
                fail("\(label): \(first) and \(second) held at once")
                return
            }
        }
    }
}
