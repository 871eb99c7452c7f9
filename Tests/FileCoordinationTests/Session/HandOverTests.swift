import CoordinationArbiter
import Testing

@testable import FileCoordination

/// Hand-overs on the board: the host session arms what its arbiter predicts, clients fire and take on a real
/// board (in private memory, the same atomic operations), and the session catches up; no socket, no thread.
@Suite("Hand-over board (host and client sessions)")
struct HandOverTests {
    typealias Action = HostSession.Action

    static let versions = VersionNegotiation(supported: 2...4)
    static func at(_ milliseconds: UInt64) -> Instant { Instant(nanoseconds: 1_000_000_000 + milliseconds * 1_000_000) }

    /// A session with a board, and the board.
    static func session() throws -> (HostSession, HandOverBoard) {
        let board = try HandOverBoard.anonymous()
        return (HostSession(now: at(0), negotiation: versions, board: board), board)
    }

    /// Accepts a client and welcomes it at `version`; returns its slot and its cell's generation (nil: none).
    static func welcomed(_ session: inout HostSession, pid: Int32, version: UInt16 = 4) -> (UInt64, UInt32?) {
        let slot = session.connectionAccepted(pid: pid)
        let actions = session.frameReceived(
            .hello(version: version, pid: pid, commandLine: "test", lowestVersion: version), from: slot, now: at(0))
        #expect(actions.first == .send(.welcome(version: version, clientID: ClientID(slot)), to: slot))
        guard actions.count == 2, case .send(.handOverBoard(let name, let cell, let generation), to: slot) = actions[1]
        else {
            #expect(actions.count == 1, "\(actions)")
            return (slot, nil)
        }
        #expect(name == "anonymous" && cell == slot)
        return (slot, generation)
    }

    /// The session's answer to `frame`, without the client list's rewrites.
    static func feed(_ session: inout HostSession, _ frame: WireFrame, from slot: UInt64, now: Instant) -> [Action] {
        session.frameReceived(frame, from: slot, now: now).filter {
            if case .writeClientList = $0 { return false }
            return true
        }
    }

    static func write(_ id: UInt64, _ path: String = "/f", purpose: String) -> WireFrame {
        .accessRequested(
            RequestID(id), purpose: PurposeID(purpose),
            intents: [AccessIntent(path: ItemPath(path), access: .writing([]))], timeout: nil, nestedIn: nil,
            reclaim: false, age: 0)
    }

    static func grant(_ id: UInt64, to slot: UInt64, _ path: String = "/f") -> Action {
        .send(.grant(RequestID(id), paths: [ItemPath(path)]), to: slot)
    }

    /// Three writers of one file, each of version 4: the first holds, the two others wait.
    static func queue() throws -> (HostSession, HandOverBoard, [(slot: UInt64, generation: UInt32)]) {
        var (session, board) = try session()
        var clients: [(UInt64, UInt32)] = []
        for pid in Int32(10)...12 {
            let (slot, generation) = welcomed(&session, pid: pid)
            clients.append((slot, try #require(generation)))
        }
        #expect(Self.feed(&session, write(1, purpose: "a"), from: clients[0].0, now: at(1)) == [grant(1, to: 1)])
        #expect(Self.feed(&session, write(1, purpose: "b"), from: clients[1].0, now: at(2)).isEmpty)
        #expect(Self.feed(&session, write(1, purpose: "c"), from: clients[2].0, now: at(3)).isEmpty)
        #expect(session.handOver().isEmpty)
        return (session, board, clients.map { (slot: $0.0, generation: $0.1) })
    }

    @Test("a client of version 4 is named the board and its cell with a new generation each time; one of 3 is not")
    func boardIsOfferedAtVersionFour() throws {
        var (session, _) = try Self.session()
        let (old, none) = Self.welcomed(&session, pid: 9, version: 3)
        #expect(none == nil)
        let (slot, first) = Self.welcomed(&session, pid: 10)
        #expect(first != nil && slot != old)
        _ = session.hungUp(slot)
        let (again, second) = Self.welcomed(&session, pid: 11)
        #expect(again == slot)
        #expect(second != nil && second != first)
    }

    @Test("the board is asked for once a second process of version 4 connects, then named to each client")
    func boardIsCreatedForTwoProcesses() throws {
        var session = HostSession(now: Self.at(0), negotiation: Self.versions, createsBoard: true)
        let hello = WireFrame.hello(version: 4, pid: 10, commandLine: "test", lowestVersion: 4)
        let first = session.connectionAccepted(pid: 10)
        #expect(session.frameReceived(hello, from: first, now: Self.at(0)).count == 1)
        // Another connection of the same process, and one of version 3: still nothing to hand over between.
        let same = session.connectionAccepted(pid: 10)
        #expect(session.frameReceived(hello, from: same, now: Self.at(0)).count == 1)
        let older = session.connectionAccepted(pid: 11)
        let olderHello = WireFrame.hello(version: 3, pid: 11, commandLine: "test", lowestVersion: 3)
        #expect(session.frameReceived(olderHello, from: older, now: Self.at(0)).count == 1)
        let second = session.connectionAccepted(pid: 12)
        let actions = session.frameReceived(
            .hello(version: 4, pid: 12, commandLine: "test", lowestVersion: 4), from: second, now: Self.at(0))
        #expect(actions == [.send(.welcome(version: 4, clientID: ClientID(second)), to: second), .createBoard])
        let named = session.boardCreated(try HandOverBoard.anonymous())
        #expect(named.map(\.slot) == [first, same, second])
        // A third process is named it at once; nothing is asked for again.
        let third = session.connectionAccepted(pid: 13)
        let welcome = session.frameReceived(
            .hello(version: 4, pid: 13, commandLine: "test", lowestVersion: 4), from: third, now: Self.at(0))
        #expect(welcome.count == 2 && !welcome.contains(.createBoard))
    }

    @Test("a queue of writers is armed as a chain; each end fires the next grant, taken with no frame from the host")
    func chainPassesAccessesWithoutTheHost() throws {
        var (session, board, clients) = try Self.queue()
        let (a, b, c) = (clients[0], clients[1], clients[2])
        // b and c wait on the board.
        board.setPresence(.spinning, cell: b.slot)
        board.setPresence(.spinning, cell: c.slot)
        #expect(board.fire(cell: a.slot, generation: a.generation, access: RequestID(1)) == .silent)
        #expect(board.take(cell: b.slot, generation: b.generation) == RequestID(1))
        // b's access ends on the board too, before the host looked at anything.
        #expect(board.fire(cell: b.slot, generation: b.generation, access: RequestID(1)) == .silent)
        #expect(board.take(cell: c.slot, generation: c.generation) == RequestID(1))
        // The host catches up in order and sends no grant: both were taken.
        #expect(session.handOver(idle: true).isEmpty)
        #expect(session.handOverCount == 2)
        // c ends by frame (nobody waits behind it): the item is free for a new writer at once.
        #expect(Self.feed(&session, .accessEnded(RequestID(1)), from: c.slot, now: Self.at(5)).isEmpty)
        #expect(Self.feed(&session, Self.write(2, purpose: "a"), from: a.slot, now: Self.at(6)) == [Self.grant(2, to: a.slot)])
    }

    @Test("a grant written on the board that its waiter does not take goes as a frame (at once, or when the host idles)")
    func untakenGrantGoesAsAFrame() throws {
        var (session, board, clients) = try Self.queue()
        let (a, b, c) = (clients[0], clients[1], clients[2])
        // b does not wait on the board: the end is announced, and the host sends the grant.
        #expect(board.fire(cell: a.slot, generation: a.generation, access: RequestID(1)) == .announced)
        #expect(Self.feed(&session, .accessEnded(RequestID(1)), from: a.slot, now: Self.at(5)).isEmpty)
        #expect(session.handOver() == [Self.grant(1, to: b.slot)])
        #expect(board.take(cell: b.slot, generation: b.generation) == nil)
        // c waits on the board but never takes its grant: sent when the host is about to sleep.
        board.setPresence(.spinning, cell: c.slot)
        #expect(session.handOver().isEmpty)
        #expect(board.fire(cell: b.slot, generation: b.generation, access: RequestID(1)) == .silent)
        #expect(session.handOver().isEmpty)
        #expect(session.handOver(idle: true) == [Self.grant(1, to: c.slot)])
        #expect(board.take(cell: c.slot, generation: c.generation) == nil)
        #expect(session.handOverCount == 2)
    }

    @Test("a request that surely waits behind the last predicted grant extends the chain; anything else takes it back")
    func onlyARequestBehindTheChainKeepsIt() throws {
        var (session, board, clients) = try Self.queue()
        let (a, b, c) = (clients[0], clients[1], clients[2])
        let (d, dGeneration) = Self.welcomed(&session, pid: 13)
        let dCell = try #require(dGeneration)
        board.setPresence(.spinning, cell: b.slot)
        board.setPresence(.spinning, cell: c.slot)
        board.setPresence(.spinning, cell: d)
        // d's request, behind c's, leaves a → b → c armed: a's end right after it still fires.
        #expect(Self.feed(&session, Self.write(1, purpose: "d"), from: d, now: Self.at(4)).isEmpty)
        #expect(board.fire(cell: a.slot, generation: a.generation, access: RequestID(1)) == .silent)
        // The host's turn extends the chain to d: c's end reaches d on the board.
        #expect(session.handOver().isEmpty)
        #expect(board.fire(cell: b.slot, generation: b.generation, access: RequestID(1)) == .silent)
        #expect(board.fire(cell: c.slot, generation: c.generation, access: RequestID(1)) == .silent)
        #expect(board.take(cell: d, generation: dCell) == RequestID(1))
        // A presenter's registration takes back what is armed: a's next access is not handed over.
        #expect(Self.feed(&session, Self.write(2, purpose: "a"), from: a.slot, now: Self.at(5)).isEmpty)
        #expect(session.handOver().isEmpty)
        #expect(
            Self.feed(
                &session, .presenterRegistered(PresenterID(1), purpose: PurposeID("e"), path: "/g", observesUncoordinatedChanges: false),
                from: b.slot, now: Self.at(6)
            ).isEmpty)
        #expect(board.fire(cell: d, generation: dCell, access: RequestID(1)) == .none)
        #expect(session.handOverCount == 3)
    }

    @Test("the first link's access ending by frame (its client looked before it was armed) leaves the rest armed")
    func headEndedByFrameKeepsTheRest() throws {
        var (session, board, clients) = try Self.queue()
        let (a, b, c) = (clients[0], clients[1], clients[2])
        #expect(Self.feed(&session, .accessEnded(RequestID(1)), from: a.slot, now: Self.at(5)) == [Self.grant(1, to: b.slot)])
        board.setPresence(.spinning, cell: c.slot)
        #expect(board.fire(cell: b.slot, generation: b.generation, access: RequestID(1)) == .silent)
        #expect(board.take(cell: c.slot, generation: c.generation) == RequestID(1))
        #expect(session.handOver(idle: true).isEmpty)
        #expect(session.handOverCount == 1)
    }

    @Test("a waiting request made before a move is not handed over (its client would grant it the old path)")
    func moveKeepsEarlierRequestsOffTheBoard() throws {
        var (session, board) = try Self.session()
        let (a, aGeneration) = Self.welcomed(&session, pid: 10)
        let (b, _) = Self.welcomed(&session, pid: 11)
        #expect(Self.feed(&session, Self.write(1, "/d/f", purpose: "a"), from: a, now: Self.at(1)) == [Self.grant(1, to: a, "/d/f")])
        #expect(Self.feed(&session, Self.write(1, "/e/f", purpose: "b"), from: b, now: Self.at(2)) == [Self.grant(1, to: b, "/e/f")])
        #expect(Self.feed(&session, Self.write(2, "/d/f", purpose: "b"), from: b, now: Self.at(3)).isEmpty)
        _ = session.handOver()
        // Armed until a reports a move (of an unrelated item): then taken back and not armed again.
        #expect(Self.feed(&session, .itemMoved(RequestID(1), from: "/d/x", to: "/d/y"), from: a, now: Self.at(4)).isEmpty)
        #expect(session.handOver().isEmpty)
        #expect(board.fire(cell: a, generation: try #require(aGeneration), access: RequestID(1)) == .none)
    }

    @Test("a client's earlier connection in the same slot can neither fire nor take")
    func earlierGenerationIsLockedOut() throws {
        var (session, board, clients) = try Self.queue()
        let (a, b, c) = (clients[0], clients[1], clients[2])
        _ = session.hungUp(b.slot)
        let (again, generation) = Self.welcomed(&session, pid: 20)
        #expect(again == b.slot)
        let current = try #require(generation)
        #expect(current != b.generation)
        #expect(Self.feed(&session, Self.write(7, purpose: "b2"), from: again, now: Self.at(5)).isEmpty)
        _ = session.handOver()
        board.setPresence(.spinning, cell: c.slot)
        board.setPresence(.spinning, cell: again)
        // a → c → the new connection: what c passes on is for the new generation only.
        #expect(board.fire(cell: a.slot, generation: a.generation, access: RequestID(1)) == .silent)
        #expect(board.take(cell: c.slot, generation: c.generation) == RequestID(1))
        #expect(board.fire(cell: c.slot, generation: c.generation, access: RequestID(1)) == .silent)
        #expect(board.take(cell: again, generation: b.generation) == nil)
        #expect(board.take(cell: again, generation: current) == RequestID(7))
        // Nor can it fire on the new connection's cell.
        #expect(board.fire(cell: again, generation: b.generation, access: RequestID(7)) == .none)
        #expect(session.handOver(idle: true).isEmpty)
        #expect(session.handOverCount == 2)
    }
}

/// The client's side of the board in its session: naming the board, a grant taken there, an end passed on there.
@Suite("Hand-over board (client session)")
struct HandOverClientSessionTests {
    static func at(_ milliseconds: UInt64) -> Instant { Instant(nanoseconds: 1_000_000_000 + milliseconds * 1_000_000) }
    static func request(_ id: UInt64) -> ClientEvent {
        .accessRequested(
            RequestID(id), purpose: PurposeID("p"), intents: [AccessIntent(path: ItemPath("/f\(id)"), access: .writing([]))],
            deadline: nil, nestedIn: nil)
    }

    /// A session connected at version 4 (attempt 1) with request 1 waiting.
    static func waiting() -> ArbiterSession {
        var session = ArbiterSession()
        #expect(session.eventSubmitted(request(1), now: at(0)) == [.connect(attempt: 1)])
        _ = session.connected(attempt: 1, now: at(1))
        _ = session.frameReceived(.welcome(version: 4, clientID: ClientID(3)), attempt: 1, now: at(2))
        return session
    }

    @Test("the host's board frame asks the driver to map it for that connection")
    func boardFrameIsUsedForItsConnection() {
        var session = Self.waiting()
        #expect(
            session.frameReceived(.handOverBoard(name: "arbiter.board.7", cell: 3, generation: 9), attempt: 1, now: Self.at(3))
                == [.useBoard(attempt: 1, name: "arbiter.board.7", cell: 3, generation: 9)])
        // A late one, of a connection gone, changes nothing.
        #expect(
            session.frameReceived(.handOverBoard(name: "arbiter.board.7", cell: 3, generation: 9), attempt: 2, now: Self.at(3))
                .isEmpty)
    }

    @Test("a grant taken on the board grants with the paths asked for; the host's frame for it changes nothing")
    func grantTakenOnTheBoard() {
        var session = Self.waiting()
        #expect(session.grantedByHandOver(RequestID(1), attempt: 2).isEmpty)
        #expect(
            session.grantedByHandOver(RequestID(1), attempt: 1)
                == [.perform(.grant(RequestID(1), paths: ["/f1"], reportsPresence: false))])
        #expect(session.frameReceived(.grant(RequestID(1), paths: ["/f1"]), attempt: 1, now: Self.at(3)).isEmpty)
        #expect(session.grantedByHandOver(RequestID(1), attempt: 1).isEmpty)
    }

    @Test("an access during which this process reported a move (or another event the host predicts with) is not handed over")
    func eventsDuringTheAccessKeepItOffTheBoard() {
        var session = Self.waiting()
        #expect(!session.mayHandOver(RequestID(1)))
        _ = session.grantedByHandOver(RequestID(1), attempt: 1)
        #expect(session.mayHandOver(RequestID(1)))
        // Requests of other threads change nothing the host predicts.
        _ = session.eventSubmitted(Self.request(2), now: Self.at(3))
        #expect(session.mayHandOver(RequestID(1)))
        _ = session.eventSubmitted(.itemMoved(RequestID(1), from: "/f1", to: "/g1"), now: Self.at(4))
        #expect(!session.mayHandOver(RequestID(1)))
        // A later grant starts afresh.
        _ = session.frameReceived(.grant(RequestID(2), paths: ["/f2"]), attempt: 1, now: Self.at(5))
        #expect(session.mayHandOver(RequestID(2)))
    }

    @Test("an access passed on at the board ends with no frame and is not declared again to a new host")
    func endPassedOnIsForgotten() {
        var session = Self.waiting()
        _ = session.grantedByHandOver(RequestID(1), attempt: 1)
        #expect(session.accessEndedByHandOver(RequestID(1)).isEmpty)
        #expect(session.outstandingRequests == 0)
        // The host goes; the next one hears of nothing.
        _ = session.connectionLost(attempt: 1, reason: "gone", now: Self.at(4))
        #expect(session.outstandingRequests == 0)
    }
}

extension HostSession.Action {
    /// The slot a frame is sent to (nil for other actions).
    fileprivate var slot: UInt64? {
        if case .send(_, let slot) = self { return slot }
        return nil
    }
}
