/// A connection to the arbiter: one client process (shared host) or the whole process (in-process host).
///
/// The host chooses the value; the arbiter only compares it. Everything a client holds is released by
/// ``Arbiter/clientDisconnected(_:)``.
public struct ClientID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The host's number for this client.
    public let rawValue: UInt64

    /// Wraps the host's number for a client.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// Orders clients by their raw value (used to make snapshots deterministic).
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `client#N`.
    public var description: String { "client#\(rawValue)" }
}

/// One coordinated access: all intents of one `coordinate(...)` call, granted or failed as a whole.
///
/// The host chooses the value and must keep it unique among the requests that are still active; the arbiter
/// rejects a duplicate with ``ArbiterAction/failClient(_:_:)``. The same value also names the request's
/// deadline timer in ``ArbiterAction/startTimer(_:deadline:)``.
public struct RequestID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The host's number for this request.
    public let rawValue: UInt64

    /// Wraps the host's number for a request.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// The id a delivery names when no request sent it (a version notice); hosts number requests from 1.
    public static let noRequest = RequestID(0)

    /// Orders requests by their raw value.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `request#N`.
    public var description: String { "request#\(rawValue)" }
}

/// A registered file presenter, owned by exactly one client.
///
/// The host chooses the value and must keep it unique across clients; a presenter id that another client
/// already registered is rejected with ``ArbiterAction/failClient(_:_:)``.
public struct PresenterID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The host's number for this presenter.
    public let rawValue: UInt64

    /// Wraps the host's number for a presenter.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// Orders presenters by their raw value.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `presenter#N`.
    public var description: String { "presenter#\(rawValue)" }
}

/// One message sent to a presenter; a reply names it in ``Arbiter/presenterReplied(_:from:failure:)``.
///
/// The arbiter assigns these itself, counting up from 1, so a reply naming a number it never issued is
/// recognisably bogus.
public struct MessageID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The arbiter's number for this message.
    public let rawValue: UInt64

    /// Wraps a message number (hosts decode replies with it).
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// Orders messages by the order the arbiter issued them.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `message#N`.
    public var description: String { "message#\(rawValue)" }
}

/// Who never blocks whom: the purpose identifier of a coordinator.
///
/// Apple exempts three relations from every waiting rule: the same coordinator instance, coordinators made
/// with the same presenter, and coordinators sharing a `purposeIdentifier`. The arbiter models all three as
/// one value: the host gives each coordinator its purpose identifier, and a coordinator made with presenter P
/// the purpose identifier of P (which is also the purpose P is registered with). Requests with equal purposes
/// never wait for each other, and a request never messages a presenter with its own purpose.
public struct PurposeID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The purpose identifier string (Apple's `purposeIdentifier`, usually a UUID string).
    public let rawValue: String

    /// Wraps a purpose identifier string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Orders purposes by their string.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The purpose identifier string.
    public var description: String { rawValue }
}

/// A point in time, in nanoseconds on the host's monotonic clock.
///
/// The arbiter never reads a clock: the host passes `now` with the events that need it and arms the timers
/// that ``ArbiterAction/startTimer(_:deadline:)`` asks for.
public struct Instant: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Nanoseconds since an arbitrary, fixed origin chosen by the host.
    public let nanoseconds: UInt64

    /// Makes an instant from nanoseconds on the host's clock.
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// Orders instants in time.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The instant `nanoseconds` later, saturating at the end of time.
    public func advanced(byNanoseconds delta: UInt64) -> Instant {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(delta)
        return Instant(nanoseconds: overflow ? .max : sum)
    }

    /// `Nns`.
    public var description: String { "\(nanoseconds)ns" }
}
