import CoordinationArbiter

/// One random schedule: random events over a small tree, with every invariant checked after each step.
///
/// Tree: `/r`, `/r/a`, `/r/a/x`, `/r/b`, `/r/b/x`, `/r/pkg.bundle`, `/r/pkg.bundle/f` (a file package).
/// Three clients, each with two coordinator purposes plus the purposes of its presenters.
struct RandomSchedule {
    static let paths: [ItemPath] = ["/r", "/r/a", "/r/a/x", "/r/b", "/r/b/x", "/r/pkg.bundle", "/r/pkg.bundle/f"]
    /// Moves a granted writer may report; `/r/c` is reached only by moving (so chains of moves go through it).
    static let moves: [(ItemPath, ItemPath)] = [
        ("/r/a", "/r/b"), ("/r/b", "/r/a"), ("/r/a/x", "/r/b/x"), ("/r/b/x", "/r/a/x"), ("/r/b", "/r/c"),
        ("/r/c", "/r/a"),
    ]
    /// Moves one access may report (more make a chain).
    static let movesPerAccess = 3
    static let clients: [UInt64] = [1, 2, 3]

    var rng: SplitMix64
    var h = Harness(recordsIssues: false)
    var failures: [String] = []
    var trace: [String] = []
    var livePresenters: [(id: UInt64, client: UInt64, purpose: String)] = []
    var nextPresenter: UInt64 = 1
    var nextRequest: UInt64 = 1
    var deadlines: [UInt64: UInt64] = [:]
    /// Moves reported so far, by request.
    var moved: [UInt64: Int] = [:]
    /// Keep a trace of the last events (slow: only when replaying a failed seed).
    let tracing: Bool

    init(seed: UInt64, tracing: Bool = false) {
        rng = SplitMix64(seed: seed)
        self.tracing = tracing
        h.rendersLines = tracing
        h.model.onGrant = { model, id in Self.fairnessViolations(model, granting: id) }
    }

    // MARK: running

    /// Runs `steps` random events, then drains; returns the first failures, or an empty list.
    mutating func run(steps: Int) -> [String] {
        for index in 0..<steps {
            step()
            check(thorough: tracing || index % 8 == 7)
            if !failures.isEmpty { return failures }
        }
        drain()
        return failures
    }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }

    mutating func pick<T>(_ items: [T]) -> T? {
        items.isEmpty ? nil : items[Int.random(in: 0..<items.count, using: &rng)]
    }

    mutating func step() {
        let roll = Int.random(in: 0..<100, using: &rng)
        switch roll {
        case 0..<24: newRequest()
        case 24..<44: replyToSomething()
        case 44..<56: endSomething()
        case 56..<61: moveSomething()
        case 61..<68: registerPresenter()
        case 68..<71: removePresenter()
        case 71..<74: relocatePresenter()
        case 74..<80: cancelSomething()
        case 80..<82: disconnectSomeone()
        case 82..<88: fireSomeTimer()
        case 88..<92: badEvent()
        case 92..<94: changeSomeVersions()
        default: h.now = h.now.advanced(byNanoseconds: UInt64.random(in: 1...20, using: &rng))
        }
    }

    /// Records the actions of the event just fed, for the failure report.
    mutating func log(_ event: @autoclosure () -> String, _ lines: [String]) {
        if tracing {
            trace.append("\(event()) -> \(lines)")
            if trace.count > 40 { trace.removeFirst() }
        }
        for start in Self.timerStarts(h.lastActions) { deadlines[start.0] = start.1 }
    }

    static func timerStarts(_ actions: [ArbiterAction]) -> [(UInt64, UInt64)] {
        actions.compactMap {
            if case .startTimer(let request, let deadline) = $0 { return (request.rawValue, deadline.nanoseconds) }
            return nil
        }
    }

    // MARK: events

    /// A random intent; some include contents (which changes the messages, never the waiting rules).
    mutating func randomIntent() -> AccessIntent {
        let path = pick(Self.paths)!
        let contents = chance(15)
        if chance(45) {
            return read(
                path, pick([[], .withoutChanges, .forUploading] as [AccessIntent.ReadingOptions])!, contents: contents)
        }
        let options: [AccessIntent.WritingOptions] = [
            [], .forDeleting, .forMoving, .forMerging, .forReplacing, .contentIndependentMetadataOnly,
        ]
        return write(path, pick(options)!, contents: contents)
    }

    /// A version notice for a random path: it reaches presenters at and above it and changes nothing else.
    mutating func changeSomeVersions() {
        let path = pick(Self.paths)!
        let change = pick(VersionNotice.Change.allCases)!
        let lines = h.versionsChanged(at: path, change)
        log("versions \(change) at \(path)", lines)
        for action in h.lastActions {
            guard case .send(let delivery) = action, let presented = h.model.presenters[delivery.presenter]?.path
            else { continue }
            let expected: Bool
            switch delivery.message {
            case .versionsChanged: expected = presented == path
            case .subitemVersionsChanged(let item, _): expected = item == path && presented.isAncestor(of: path)
            default: expected = false
            }
            if !expected { failures.append("version notice \(delivery) for \(path) reached \(presented)") }
        }
    }

    mutating func newRequest() {
        let client = pick(Self.clients)!
        var purpose = "c\(client).k\(Int.random(in: 0..<2, using: &rng))"
        var nestedIn: UInt64?
        let ownPresenters = livePresenters.filter { $0.client == client }
        let granted = h.model.active.compactMap { self.h.model.requests[$0] }.filter {
            $0.client == ClientID(client) && $0.status == .granted
        }
        .sorted { $0.sequence < $1.sequence }
        if chance(20), let presenter = pick(ownPresenters) {
            purpose = presenter.purpose
        } else if chance(10), let outer = pick(granted) {
            purpose = outer.purpose.rawValue
            nestedIn = outer.id.rawValue
        }
        var intents: [AccessIntent]
        if chance(12) {
            let (from, to) = pick(Self.moves)!
            intents = [write(from, .forMoving), write(to, .forReplacing)]
        } else {
            intents = [randomIntent()]
            if chance(30) { intents.append(randomIntent()) }
        }
        let deadline = chance(30) ? h.now.nanoseconds + UInt64.random(in: 1...60, using: &rng) : nil
        let id = nextRequest
        nextRequest += 1
        let lines = h.request(id, client: client, purpose: purpose, intents, deadline: deadline, nestedIn: nestedIn)
        log(
            "R\(id) C\(client) \(purpose) \(intents) deadline \(String(describing: deadline)) nestedIn \(String(describing: nestedIn))",
            lines)
    }

    mutating func replyToSomething() {
        guard let delivery = pick(h.model.unreplied) else { return }
        let failure = chance(5) ? PresenterFailure(encoded: [1]) : nil
        let lines = h.reply(delivery.id, client: delivery.client, failure: failure)
        log("reply \(delivery) failure \(failure != nil)", lines)
    }

    mutating func endSomething() {
        let granted = h.model.active.compactMap { self.h.model.requests[$0] }.filter { $0.status == .granted }.sorted {
            $0.sequence < $1.sequence
        }
        guard let request = pick(granted) else { return }
        log("end \(request.id)", h.end(request.id.rawValue, client: request.client.rawValue))
    }

    /// A granted writer moves an item that one of its content-excluding writes covers (the item it claimed for
    /// moving, something inside a directory it deletes, or, after a move, the item where it went), often right
    /// after another request started waiting for the item.
    mutating func moveSomething() {
        let granted = h.model.active.compactMap { self.h.model.requests[$0] }.filter {
            $0.status == .granted && moved[$0.id.rawValue, default: 0] < Self.movesPerAccess
        }
        .sorted { $0.sequence < $1.sequence }
        for request in granted {
            let covering = request.held.filter(ConflictRules.excludesContents).map(\.path)
            let candidates = Self.moves.filter { move in covering.contains { move.0.hasPrefix($0) } }
            guard let (from, to) = pick(candidates) else { continue }
            if chance(60) { waitForItem(at: from) }
            moved[request.id.rawValue, default: 0] += 1
            let lines = h.move(request.id.rawValue, client: request.client.rawValue, from: from, to: to)
            log("move by \(request.id) \(from) -> \(to)", lines)
            return
        }
    }

    /// A new request for the item at `path` or something inside it (it will wait for the mover).
    mutating func waitForItem(at path: ItemPath) {
        guard let target = pick(Self.paths.filter { $0.hasPrefix(path) }) else { return }
        let client = pick(Self.clients)!
        let purpose = "c\(client).k\(Int.random(in: 0..<2, using: &rng))"
        let random = randomIntent()
        let intent = AccessIntent(
            path: target, access: random.access, packageRootDepths: target.packageRootDepths(extensions: ["bundle"]),
            includesContents: random.includesContents)
        let id = nextRequest
        nextRequest += 1
        let lines = h.request(id, client: client, purpose: purpose, [intent])
        log("R\(id) C\(client) \(purpose) [\(intent)] for the item to move", lines)
    }

    mutating func registerPresenter() {
        guard livePresenters.count < 6 else { return }
        let client = pick(Self.clients)!
        let id = nextPresenter
        nextPresenter += 1
        let path = chance(10) ? nil : pick(Self.paths)
        livePresenters.append((id, client, "pres\(id)"))
        log(
            "register P\(id) C\(client) at \(String(describing: path))",
            h.register(id, client: client, purpose: "pres\(id)", path: path))
    }

    mutating func removePresenter() {
        guard let presenter = pick(livePresenters) else { return }
        livePresenters.removeAll { $0.id == presenter.id }
        log("unregister P\(presenter.id)", h.unregister(presenter.id, client: presenter.client))
    }

    mutating func relocatePresenter() {
        guard let presenter = pick(livePresenters) else { return }
        let path = chance(15) ? nil : pick(Self.paths)
        log(
            "relocate P\(presenter.id) to \(String(describing: path))",
            h.movePresenter(presenter.id, client: presenter.client, to: path))
    }

    mutating func cancelSomething() {
        let active = h.model.active.compactMap { self.h.model.requests[$0] }.filter { !$0.status.isTerminal }.sorted {
            $0.sequence < $1.sequence
        }
        guard let request = pick(active) else { return }
        log("cancel \(request.id)", h.cancel(request.id.rawValue, client: request.client.rawValue))
    }

    mutating func disconnectSomeone() {
        let client = pick(Self.clients)!
        livePresenters.removeAll { $0.client == client }
        log("disconnect C\(client)", h.disconnect(client))
    }

    mutating func fireSomeTimer() {
        let armed = h.model.armed.compactMap { self.h.model.requests[$0] }.sorted { $0.sequence < $1.sequence }
        guard let request = pick(armed), let deadline = deadlines[request.id.rawValue] else { return }
        let time = max(h.now.nanoseconds, deadline)
        log("timer \(request.id) at \(time)", h.fireTimer(request.id.rawValue, at: time))
    }

    /// An event a well-behaved client never sends: exactly one `failClient`, and nothing else changes.
    mutating func badEvent() {
        var actions: [ArbiterAction]
        var event: String
        let active = h.model.active.compactMap { self.h.model.requests[$0] }.filter { !$0.status.isTerminal }.sorted {
            $0.sequence < $1.sequence
        }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            let message = MessageID(h.model.lastMessage + 1000)
            event = "bogus reply \(message)"
            actions = h.arbiter.presenterReplied(message, from: ClientID(1))
        case 1:
            guard let request = pick(active) else { return }
            let other = ClientID(request.client.rawValue % 3 + 1)
            event = "end \(request.id) from \(other)"
            actions = h.arbiter.accessEnded(request.id, from: other)
        case 2:
            guard let delivery = pick(h.model.unreplied) else { return }
            let other = ClientID(delivery.client.rawValue % 3 + 1)
            event = "reply \(delivery.id) from \(other)"
            actions = h.arbiter.presenterReplied(delivery.id, from: other)
        default:
            guard let request = pick(active) else { return }
            event = "duplicate \(request.id)"
            actions = h.arbiter.accessRequested(
                request.id, client: request.client, purpose: request.purpose, intents: [], now: h.now)
        }
        if tracing { trace.append("\(event) -> \(actions)") }
        guard actions.count == 1, case .failClient = actions[0] else {
            return failures.append("bad event \(event) gave \(actions)")
        }
    }
}
