import StoreCore

/// The deadlines of one HTTP/1 connection, as a pure state machine: events are what happened on the connection
/// (with `now` passed in), and the machine answers with the one deadline that holds and, when it is reached, why
/// the connection closes. No clock, timer or socket inside: ``ConnectionDeadlineHandler`` is its executor.
///
/// What the connection waits for, and for how long:
/// - ``Wait/requestHead``: a complete request head, at most the header timeout after the connection opened or
///   after the first byte of a request following an earlier response.
/// - ``Wait/nextRequest``: the first byte of the next request after a response (keep-alive), at most the idle
///   timeout.
/// - ``Wait/requestBody``: more of the request body; each read restarts the idle timeout. The body as a whole
///   must also keep a minimum rate and end within a total deadline (``BodyPace``): after a grace period it must
///   have brought at least `minimumRate` bytes a second on average since its head (as Apache's
///   `mod_reqtimeout` `MinRate`), so a body trickled a byte at a time, which the idle timeout never catches, is
///   cut, and the upload budget it reserved is released at once.
/// - ``Wait/serverWork``: the service's answer; no deadline (the service bounds its own work).
/// - ``Wait/responseBody``: the response being written; each write (an event stream's keep-alive comment too)
///   restarts the idle timeout.
///
/// Transitions: `requestHead` → `requestBody` (head) → `serverWork` (end) → `responseBody` (response head) →
/// `nextRequest` (response end) → `requestHead` (a byte); a response head while the request is still being read
/// means the rest of the body is not wanted: the connection closes once that response ends.
struct ConnectionDeadlines: Sendable {
    /// What the connection waits for.
    enum Wait: Sendable, Equatable {
        case requestHead, nextRequest, requestBody, serverWork, responseBody
    }

    /// Why a connection is closed.
    enum Reason: Sendable, Equatable {
        /// No complete request head within the header timeout.
        case headerTimeout
        /// No traffic within the idle timeout (between requests, or in a body).
        case idleTimeout
        /// A response was sent before its request's body was read: the body is not read.
        case answeredEarly
        /// The request body came slower than the minimum rate, or was not done within the body deadline.
        case bodyTooSlow
    }

    /// How fast a request body must come: the minimum average rate after a grace period, and the most time a
    /// whole body may take.
    struct BodyPace: Sendable, Equatable {
        /// Bytes a second a body must average once ``grace`` has passed (0: no minimum).
        var minimumRate: Int
        /// How long a body may come at any rate before the minimum holds.
        var grace: Duration
        /// The most time one body may take from its head to its end.
        var deadline: Duration

        /// No minimum rate, no deadline beyond a day.
        static let unbounded = BodyPace(minimumRate: 0, grace: .zero, deadline: .seconds(86_400))
    }

    /// What the executor does after a timer fired.
    enum TimerAction: Sendable, Equatable {
        /// Close the connection.
        case close(Reason)
        /// Not yet: wait until this deadline (or nothing, when none holds).
        case wait(ContinuousClock.Instant?)
    }

    let headerTimeout: Duration
    let idleTimeout: Duration
    let bodyPace: BodyPace
    /// What the connection waits for now.
    private(set) var wait: Wait = .requestHead
    /// When the connection closes unless something happens first; nil while the service works.
    private(set) var deadline: ContinuousClock.Instant?
    /// Requests whose head arrived and whose response has not ended.
    private var unanswered = 0
    /// A request head arrived and its end has not.
    private var isReadingRequest = false
    /// A response head was written and its end has not.
    private var isResponding = false
    /// The response being written was started before its request's end: close after it.
    private var closesAfterResponse = false
    /// When the body being read began (its request's head), and how many of its bytes came.
    private var bodyStartedAt: ContinuousClock.Instant?
    private var bodyBytes = 0

    /// A connection that just opened at `now`: it must send a complete head within `headerTimeout`; its request
    /// bodies must keep `bodyPace`.
    init(
        now: ContinuousClock.Instant, headerTimeout: Duration, idleTimeout: Duration, bodyPace: BodyPace = .unbounded
    ) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.bodyPace = bodyPace
        deadline = now + headerTimeout
    }

    /// Bytes arrived (whether or not they completed a request part).
    mutating func bytesArrived(now: ContinuousClock.Instant) {
        switch wait {
        case .nextRequest:
            wait = .requestHead
            deadline = now + headerTimeout
        case .requestBody:
            deadline = bodyDeadline(lastByteAt: now)
        case .requestHead, .serverWork, .responseBody:
            break
        }
    }

    /// `count` bytes of the request body arrived.
    mutating func bodyArrived(_ count: Int, now: ContinuousClock.Instant) {
        bodyBytes += count
        bytesArrived(now: now)
    }

    /// A complete request head arrived.
    mutating func requestHeadArrived(now: ContinuousClock.Instant) {
        unanswered += 1
        isReadingRequest = true
        bodyStartedAt = now
        bodyBytes = 0
        settle(now: now)
    }

    /// The request's end arrived.
    mutating func requestEnded(now: ContinuousClock.Instant) {
        isReadingRequest = false
        settle(now: now)
    }

    /// A response head is being written. Returns true when the connection closes after this response (its
    /// request's body is still arriving and will not be read): the response should say `Connection: close`.
    mutating func responseHeadWritten(now: ContinuousClock.Instant) -> Bool {
        isResponding = true
        if isReadingRequest { closesAfterResponse = true }
        settle(now: now)
        return closesAfterResponse
    }

    /// Part of a response body is being written.
    mutating func responseBodyWritten(now: ContinuousClock.Instant) {
        if wait == .responseBody { deadline = now + idleTimeout }
    }

    /// The response's end is being written. Returns the reason to close once it is sent, if the connection closes.
    mutating func responseEnded(now: ContinuousClock.Instant) -> Reason? {
        isResponding = false
        unanswered = max(0, unanswered - 1)
        if closesAfterResponse {
            closesAfterResponse = false
            return .answeredEarly
        }
        settle(now: now)
        return nil
    }

    /// A timer the executor set fired at `now`.
    func deadlineReached(now: ContinuousClock.Instant) -> TimerAction {
        guard let deadline, now >= deadline else { return .wait(deadline) }
        switch wait {
        case .requestHead: return .close(.headerTimeout)
        case .requestBody: return .close(isBodyTooSlow(at: now) ? .bodyTooSlow : .idleTimeout)
        case .nextRequest, .responseBody: return .close(.idleTimeout)
        case .serverWork: return .wait(nil)
        }
    }

    /// The earliest of: the idle timeout after the last byte, the instant the body falls below the minimum rate
    /// with the bytes it has, and the body's deadline.
    private func bodyDeadline(lastByteAt now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        var earliest = now + idleTimeout
        guard let start = bodyStartedAt else { return earliest }
        earliest = min(earliest, start + bodyPace.deadline)
        if bodyPace.minimumRate > 0 {
            let earned = Duration.seconds(Double(bodyBytes) / Double(bodyPace.minimumRate))
            earliest = min(earliest, start + bodyPace.grace + earned)
        }
        return earliest
    }

    /// Whether the body being read is behind the minimum rate or past its deadline at `now`.
    private func isBodyTooSlow(at now: ContinuousClock.Instant) -> Bool {
        guard let start = bodyStartedAt else { return false }
        if now >= start + bodyPace.deadline { return true }
        guard bodyPace.minimumRate > 0 else { return false }
        return now >= start + bodyPace.grace + .seconds(Double(bodyBytes) / Double(bodyPace.minimumRate))
    }

    /// Derives what the connection waits for from where its request and response are.
    private mutating func settle(now: ContinuousClock.Instant) {
        let next: Wait
        if isReadingRequest {
            next = .requestBody
        } else if unanswered > 0 {
            next = isResponding ? .responseBody : .serverWork
        } else {
            next = .nextRequest
        }
        guard next != wait else { return }
        wait = next
        switch next {
        case .requestHead: deadline = now + headerTimeout
        case .requestBody: deadline = bodyDeadline(lastByteAt: now)
        case .nextRequest, .responseBody: deadline = now + idleTimeout
        case .serverWork: deadline = nil
        }
    }
}
