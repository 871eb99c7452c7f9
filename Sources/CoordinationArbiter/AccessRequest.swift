/// An active request: waiting, consulting presenters, or granted. Ended and failed requests are forgotten.
struct AccessRequest: Sendable {
    /// Where a request is in its life.
    ///
    /// Legal transitions (anything else is a bug in the arbiter, not in a client):
    /// - `queued` → `consultingPresenters` when no conflicting request is ahead of it and some presenter must
    ///   be asked; → `granted` when nobody must be asked.
    /// - `consultingPresenters` → `consultingPresenters` (next phase) when every reply of a phase is in;
    ///   → `granted` after the last phase if still unblocked; → `readyAfterRound` if a move made it conflict
    ///   with a request ahead of it in the meantime.
    /// - `readyAfterRound` → `granted` when unblocked again (no second round).
    /// - `granted` → forgotten on `accessEnded` or client disconnect.
    /// - `queued`, `consultingPresenters`, `readyAfterRound` → forgotten on cancel, timeout, presenter error
    ///   or client disconnect.
    enum State: Sendable {
        /// Waiting for conflicting requests ahead of it; no presenter has been messaged.
        case queued
        /// Unblocked; messaging presenters and waiting for their replies.
        case consultingPresenters(PresenterRound)
        /// All presenters replied, but a request ahead of it conflicts again (only after a move).
        case readyAfterRound
        /// The accessor runs.
        case granted
    }

    /// One intent and where it is filed in the claim table.
    struct ClaimedIntent: Sendable {
        /// The intent, with its path updated for moves while the request waits.
        var intent: AccessIntent
        /// The claim table node of `intent.claimedPath`.
        var node: Int
    }

    /// A presenter that relinquished for this request and gets a reacquire when the request is over.
    struct Relinquishment: Sendable {
        /// The presenter.
        let presenter: PresenterID
        /// The relinquish message, named again by the reacquire message.
        let message: MessageID
    }

    /// The host's id.
    let id: RequestID
    /// The client that asked.
    let client: ClientID
    /// The coordinator's purpose.
    let purpose: PurposeID
    /// Arrival order; FIFO among conflicting requests follows it.
    let sequence: UInt64
    /// When it was asked for.
    let requestedAt: Instant
    /// When it times out, if ever.
    let deadline: Instant?
    /// The granted request of the same coordinator this one is nested in, if any.
    let nestedIn: RequestID?
    /// The intents, in the requester's order.
    var intents: [ClaimedIntent]
    /// Where it is in its life.
    var state: State
    /// Presenters that were asked to relinquish, in the order they were asked.
    var relinquished: [Relinquishment] = []
    /// True while the host holds a timer for it.
    var timerArmed = false

    /// True once granted.
    var isGranted: Bool {
        switch state {
        case .granted: return true
        case .queued, .consultingPresenters, .readyAfterRound: return false
        }
    }

    /// The intents' current paths, as the grant reports them.
    var currentPaths: [ItemPath] { intents.map(\.intent.path) }

}

/// A message the arbiter waits on, and whose reply it expects from one client.
struct PendingReply: Sendable {
    /// The request that waits.
    let request: RequestID
    /// The presenter asked.
    let presenter: PresenterID
    /// The client that must reply.
    let client: ClientID
    /// The presenter's purpose (a request of that purpose may overtake the waiting request: see
    /// ``Arbiter`` "Presenters that coordinate in their handlers").
    let purpose: PurposeID
    /// The item the message is about (reported if the request times out while waiting on it).
    let path: ItemPath
}

/// A registered presenter.
struct PresenterRecord: Sendable {
    /// The presenter's id.
    let id: PresenterID
    /// Its owner.
    let client: ClientID
    /// Its purpose: requests of this purpose never message it.
    var purpose: PurposeID
    /// Its path, or nil while it presents no item (it then gets no message).
    var path: ItemPath?
    /// Its claim table node, when it has a path.
    var node: Int?
    /// Quire extension, recorded for the snapshot only.
    var observesUncoordinatedChanges: Bool
    /// Registration order (messages to several presenters go out in this order).
    let sequence: UInt64
}
