import CoordinationArbiter

/// What a process tells the arbiter. A host turns each into the arbiter event of the same name, adding the
/// client's id and the time.
enum ClientEvent: Sendable {
    case presenterRegistered(PresenterID, purpose: PurposeID, path: ItemPath?, observesUncoordinatedChanges: Bool)
    case presenterMoved(PresenterID, path: ItemPath?)
    case presenterRemoved(PresenterID)
    case accessRequested(RequestID, purpose: PurposeID, intents: [AccessIntent], deadline: Instant?, nestedIn: RequestID?)
    /// `presence`: one entry per intent when the grant asked for it (see ``ItemPresence``), else empty.
    case accessEnded(RequestID, presence: [ItemPresence?])
    case itemMoved(RequestID, from: ItemPath, to: ItemPath)
    case cancelRequested(RequestID)
    case presenterReplied(MessageID, failure: PresenterFailure?)
    /// A version of the item at the path was added, removed or resolved by this process.
    case itemVersionsChanged(ItemPath, VersionNotice)
}

/// What the arbiter tells a process: the actions addressed to it.
enum ClientAction: Sendable, Equatable {
    /// `reportsPresence`: report whether the written items exist before and after the accessor.
    case grant(RequestID, paths: [ItemPath], reportsPresence: Bool)
    case fail(RequestID, AccessFailure)
    case deliver(PresenterDelivery)
    /// The request cannot be served: no host of the shared arbiter can be reached or started (never sent by an
    /// arbiter; the connection reports it).
    case unavailable(RequestID, String)
}

/// The way to the arbiter: in this process (``InProcessArbiterHost``) or, with the shared scope, a Unix
/// socket to the process that hosts it. The arbiter itself is the same in both.
protocol ArbiterEndpoint: AnyObject, Sendable {
    /// Sends an event; the actions it causes reach the client's action handler, possibly on this thread
    /// before `submit` returns.
    func submit(_ event: ClientEvent)
    /// A picture of the arbiter's presenters and claims (for `quire presenters` and `quire claims`), taken
    /// after every event this process submitted before the call.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` when the shared arbiter cannot answer.
    func snapshot() throws(FileCoordinationError) -> WireSnapshot
}
