/// Something the host must do after feeding the arbiter an event, in the order given.
///
/// The host performs the actions outside its lock: resume the granted accessor, deliver presenter messages,
/// fail waiting calls, arm or disarm timers, and drop misbehaving clients.
public enum ArbiterAction: Hashable, Sendable, CustomStringConvertible {
    /// Run the request's accessor with these paths, one per intent in the request's order (moved paths
    /// already applied). The access lasts until ``Arbiter/accessEnded(_:from:presence:)``.
    ///
    /// With `reportsPresence`, a presenter of a directory enclosing one of the written items will be told of
    /// the write: the client looks whether each written item exists before the accessor runs and after it
    /// returns, and reports it when the access ends (see ``ItemPresence``).
    case grant(RequestID, ClientID, paths: [ItemPath], reportsPresence: Bool = false)
    /// Deliver a message to a presenter.
    case send(PresenterDelivery)
    /// The request will never be granted; its accessor must not run.
    case fail(RequestID, ClientID, AccessFailure)
    /// Call ``Arbiter/deadlineReached(_:now:)`` for this request at `deadline` (replaces an armed timer).
    case startTimer(RequestID, deadline: Instant)
    /// Disarm the request's timer (a late firing is harmless: it is ignored).
    case cancelTimer(RequestID)
    /// The client sent an event that cannot happen for a well-behaved client; the arbiter changed nothing.
    ///
    /// A shared host drops the connection and then reports ``Arbiter/clientDisconnected(_:)``; an in-process
    /// host treats it as an internal error.
    case failClient(ClientID, ProtocolViolation)

    /// One line per action, for test failures and traces.
    public var description: String {
        switch self {
        case .grant(let request, let client, let paths, let reportsPresence):
            return "grant \(request) to \(client) \(paths.map(\.description))\(reportsPresence ? " +presence" : "")"
        case .send(let delivery):
            return "send \(delivery)"
        case .fail(let request, let client, let failure):
            return "fail \(request) of \(client): \(failure)"
        case .startTimer(let request, let deadline):
            return "startTimer \(request) at \(deadline)"
        case .cancelTimer(let request):
            return "cancelTimer \(request)"
        case .failClient(let client, let violation):
            return "failClient \(client): \(violation)"
        }
    }
}

/// Why a request failed.
public enum AccessFailure: Hashable, Sendable, CustomStringConvertible {
    /// ``Arbiter/cancelRequested(_:from:)`` arrived before the grant (Apple: `NSUserCancelledError`, 3072).
    case cancelled
    /// The deadline passed before the grant; the path is the intent that was still blocked.
    case timedOut(ItemPath)
    /// A presenter replied with an error; the payload is the host's encoding of it.
    case presenterFailed(PresenterFailure)

    /// `cancelled`, `timedOut(/p)` or `presenterFailed(...)`.
    public var description: String {
        switch self {
        case .cancelled: return "cancelled"
        case .timedOut(let path): return "timedOut(\(path))"
        case .presenterFailed(let failure): return "presenterFailed(\(failure))"
        }
    }
}

/// A presenter's error, opaque to the arbiter.
///
/// The host encodes whatever it needs to rebuild the error for the requester: domain, code and message for a
/// remote presenter, or a key into its own table of `Error` values in-process.
public struct PresenterFailure: Hashable, Sendable, CustomStringConvertible {
    /// The host's encoding of the error.
    public let encoded: [UInt8]

    /// Wraps the host's encoding of a presenter's error.
    public init(encoded: [UInt8]) { self.encoded = encoded }

    /// The byte count.
    public var description: String { "\(encoded.count) bytes" }
}

/// An event a well-behaved client never sends; reported with ``ArbiterAction/failClient(_:_:)``.
///
/// Events that can legitimately race (a reply after a cancel, a cancel after a timeout, a timer after a
/// grant, anything about an id that is already gone) are ignored instead and produce no action.
public enum ProtocolViolation: Hashable, Sendable, CustomStringConvertible {
    /// ``Arbiter/accessRequested(_:client:purpose:intents:deadline:nestedIn:now:)`` reused an active id.
    case duplicateRequest(RequestID)
    /// The event names a request that belongs to another client.
    case requestOfAnotherClient(RequestID)
    /// The event names a presenter that belongs to another client.
    case presenterOfAnotherClient(PresenterID)
    /// A reply names a message id the arbiter never issued.
    case unknownMessage(MessageID)
    /// A reply comes from a client other than the one the message was sent to.
    case replyFromWrongClient(MessageID)
    /// ``Arbiter/accessEnded(_:from:presence:)`` for a request that was never granted.
    case accessEndedBeforeGrant(RequestID)
    /// ``Arbiter/itemMoved(_:from:at:to:)`` outside a granted request with a writing intent.
    case moveOutsideWriteAccess(RequestID)
    /// `nestedIn` names a request of another purpose.
    case nestedInForeignRequest(RequestID)

    /// The case name and its argument.
    public var description: String {
        switch self {
        case .duplicateRequest(let request): return "duplicateRequest(\(request))"
        case .requestOfAnotherClient(let request): return "requestOfAnotherClient(\(request))"
        case .presenterOfAnotherClient(let presenter): return "presenterOfAnotherClient(\(presenter))"
        case .unknownMessage(let message): return "unknownMessage(\(message))"
        case .replyFromWrongClient(let message): return "replyFromWrongClient(\(message))"
        case .accessEndedBeforeGrant(let request): return "accessEndedBeforeGrant(\(request))"
        case .moveOutsideWriteAccess(let request): return "moveOutsideWriteAccess(\(request))"
        case .nestedInForeignRequest(let request): return "nestedInForeignRequest(\(request))"
        }
    }
}
