import CoordinationArbiter
import Testing

/// Feeds events to a bare ``Arbiter``, applies the actions to an ``ActionModel`` and renders them as short
/// lines (`grant R1 /r/a`, `P2 relinquishToReader`, `fail R3 cancelled`) for exact expectations.
struct Harness {
    var arbiter = Arbiter()
    var model = ActionModel()
    var now = Instant(nanoseconds: 0)
    /// Record model violations as test issues after each event (the randomized test collects them itself).
    var recordsIssues = true
    /// Render actions as lines (the randomized test skips it unless it replays a failure with a trace).
    var rendersLines = true
    /// The actions of the last event, as the arbiter returned them.
    var lastActions: [ArbiterAction] = []

    init(recordsIssues: Bool = true) { self.recordsIssues = recordsIssues }

    // MARK: events

    @discardableResult
    mutating func register(
        _ presenter: UInt64, client: UInt64, purpose: String, path: ItemPath?, observes: Bool = false
    ) -> [String] {
        model.registered(PresenterID(presenter), client: ClientID(client), purpose: PurposeID(purpose), path: path)
        return run(
            arbiter.presenterRegistered(
                PresenterID(presenter), client: ClientID(client), purpose: PurposeID(purpose), path: path,
                observesUncoordinatedChanges: observes))
    }

    @discardableResult
    mutating func movePresenter(_ presenter: UInt64, client: UInt64, to path: ItemPath?) -> [String] {
        model.presenterMoved(PresenterID(presenter), client: ClientID(client), path: path)
        return run(arbiter.presenterMoved(PresenterID(presenter), from: ClientID(client), to: path))
    }

    @discardableResult
    mutating func unregister(_ presenter: UInt64, client: UInt64) -> [String] {
        model.removed(PresenterID(presenter), client: ClientID(client))
        return run(arbiter.presenterRemoved(PresenterID(presenter), from: ClientID(client)))
    }

    @discardableResult
    mutating func request(
        _ request: UInt64, client: UInt64, purpose: String, _ intents: [AccessIntent], deadline: UInt64? = nil,
        nestedIn: UInt64? = nil
    ) -> [String] {
        model.requested(
            RequestID(request), client: ClientID(client), purpose: PurposeID(purpose), intents: intents,
            nestedIn: nestedIn.map(RequestID.init))
        return run(
            arbiter.accessRequested(
                RequestID(request), client: ClientID(client), purpose: PurposeID(purpose), intents: intents,
                deadline: deadline.map { Instant(nanoseconds: $0) }, nestedIn: nestedIn.map(RequestID.init), now: now))
    }

    @discardableResult
    mutating func end(_ request: UInt64, client: UInt64, presence: [ItemPresence?] = []) -> [String] {
        model.ended(RequestID(request))
        return run(arbiter.accessEnded(RequestID(request), from: ClientID(client), presence: presence))
    }

    @discardableResult
    mutating func cancel(_ request: UInt64, client: UInt64) -> [String] {
        run(arbiter.cancelRequested(RequestID(request), from: ClientID(client)))
    }

    @discardableResult
    mutating func move(_ request: UInt64, client: UInt64, from old: ItemPath, to new: ItemPath) -> [String] {
        if let mover = model.requests[RequestID(request)], mover.status == .granted, mover.client == ClientID(client),
            mover.intents.contains(where: ConflictRules.isWrite), old != new
        {
            model.moved(from: old, to: new, by: RequestID(request))
        }
        return run(arbiter.itemMoved(RequestID(request), from: ClientID(client), at: old, to: new))
    }

    @discardableResult
    mutating func versionsChanged(at path: ItemPath, _ change: VersionNotice.Change, version: [UInt8] = [7]) -> [String] {
        run(arbiter.itemVersionsChanged(at: path, VersionNotice(change, version: version)))
    }

    @discardableResult
    mutating func disconnect(_ client: UInt64) -> [String] {
        model.disconnected(ClientID(client))
        return run(arbiter.clientDisconnected(ClientID(client)))
    }

    @discardableResult
    mutating func fireTimer(_ request: UInt64, at time: UInt64) -> [String] {
        now = Instant(nanoseconds: time)
        model.timerFired(RequestID(request))
        return run(arbiter.deadlineReached(RequestID(request), now: now))
    }

    @discardableResult
    mutating func reply(_ message: MessageID, client: ClientID, failure: PresenterFailure? = nil) -> [String] {
        model.replied(message)
        return run(arbiter.presenterReplied(message, from: client, failure: failure))
    }

    /// Replies to every message owed right now by `presenter` (or by anyone), in the order sent; messages
    /// that the replies cause (the next phase) are left owed.
    @discardableResult
    mutating func replyAll(presenter: UInt64? = nil, failure: PresenterFailure? = nil) -> [String] {
        let owed = model.unreplied.filter { presenter == nil || $0.presenter == PresenterID(presenter!) }
        var lines: [String] = []
        for delivery in owed {
            lines += reply(delivery.id, client: delivery.client, failure: failure)
        }
        return lines
    }

    /// Messages owed a reply, as lines.
    var owed: [String] { model.unreplied.map { "P\($0.presenter.rawValue) \($0.message)" } }

    // MARK: rendering

    mutating func run(_ actions: [ArbiterAction]) -> [String] {
        let before = model.violations.count
        lastActions = actions
        model.apply(actions)
        if recordsIssues {
            for violation in model.violations[before...] { Issue.record("model rejected an action: \(violation)") }
        }
        return rendersLines ? actions.map(Self.line) : []
    }

    static func line(_ action: ArbiterAction) -> String {
        switch action {
        case .grant(let request, _, let paths, let reportsPresence):
            return (["grant R\(request.rawValue)"] + paths.map(\.description) + (reportsPresence ? ["+presence"] : []))
                .joined(separator: " ")
        case .send(let delivery):
            if case .reacquire = delivery.message { return "P\(delivery.presenter.rawValue) reacquire" }
            return "P\(delivery.presenter.rawValue) \(delivery.message)"
        case .fail(let request, _, let failure):
            switch failure {
            case .presenterFailed: return "fail R\(request.rawValue) presenterFailed"
            case .cancelled, .timedOut: return "fail R\(request.rawValue) \(failure)"
            }
        case .startTimer(let request, let deadline):
            return "startTimer R\(request.rawValue) @\(deadline.nanoseconds)"
        case .cancelTimer(let request):
            return "cancelTimer R\(request.rawValue)"
        case .failClient(let client, let violation):
            return "failClient C\(client.rawValue) \(violation)"
        }
    }
}

/// Short intent constructors for tests; `.bundle` directories are file packages.
func read(_ path: ItemPath, _ options: AccessIntent.ReadingOptions = [], contents: Bool = false) -> AccessIntent {
    .reading(
        path, options: options, packageRootDepths: path.packageRootDepths(extensions: ["bundle"]),
        includesContents: contents)
}

func write(_ path: ItemPath, _ options: AccessIntent.WritingOptions = [], contents: Bool = false) -> AccessIntent {
    .writing(
        path, options: options, packageRootDepths: path.packageRootDepths(extensions: ["bundle"]),
        includesContents: contents)
}
