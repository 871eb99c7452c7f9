import CoordinationArbiter

/// Conversions between frames and the ``ClientEvent``s and ``ClientAction``s that endpoints exchange.
extension WireFrame {
    /// The frame that carries `event` to the host.
    ///
    /// `now` is the client's clock, used to turn a deadline into the timeout the frame carries; `reclaim` marks
    /// an `accessRequested` that re-declares an access held before a host hand-over (other events ignore it).
    init(_ event: ClientEvent, now: Instant, reclaim: Bool = false) {
        switch event {
        case .presenterRegistered(let presenter, let purpose, let path, let observesUncoordinatedChanges):
            self = .presenterRegistered(
                presenter, purpose: purpose, path: path, observesUncoordinatedChanges: observesUncoordinatedChanges)
        case .presenterMoved(let presenter, let path):
            self = .presenterMoved(presenter, path: path)
        case .presenterRemoved(let presenter):
            self = .presenterRemoved(presenter)
        case .accessRequested(let request, let purpose, let intents, let deadline, let nestedIn):
            // A deadline already past becomes a zero timeout: the host fails the request at once.
            let timeout = deadline.map { $0 > now ? $0.nanoseconds - now.nanoseconds : 0 }
            self = .accessRequested(
                request, purpose: purpose, intents: intents, timeout: timeout, nestedIn: nestedIn, reclaim: reclaim)
        case .accessEnded(let request, let presence):
            self = .accessEnded(request, presence: presence)
        case .itemMoved(let request, let from, let to):
            self = .itemMoved(request, from: from, to: to)
        case .cancelRequested(let request):
            self = .cancelRequested(request)
        case .presenterReplied(let message, let failure):
            self = .presenterReplied(message, failure: failure)
        case .itemVersionsChanged(let path, let notice):
            self = .versionsChanged(path, notice)
        }
    }

    /// The event this frame carries, with a timeout turned into a deadline on the host's clock (`now`, when the
    /// frame was read); nil for frames that are not events. An `accessRequested` frame's `reclaim` flag is not
    /// part of the event: the host reads it from the frame.
    func clientEvent(receivedAt now: Instant) -> ClientEvent? {
        switch self {
        case .presenterRegistered(let presenter, let purpose, let path, let observesUncoordinatedChanges):
            return .presenterRegistered(
                presenter, purpose: purpose, path: path, observesUncoordinatedChanges: observesUncoordinatedChanges)
        case .presenterMoved(let presenter, let path):
            return .presenterMoved(presenter, path: path)
        case .presenterRemoved(let presenter):
            return .presenterRemoved(presenter)
        case .accessRequested(let request, let purpose, let intents, let timeout, let nestedIn, _, _):
            return .accessRequested(
                request, purpose: purpose, intents: intents, deadline: timeout.map { now.advanced(byNanoseconds: $0) },
                nestedIn: nestedIn)
        case .accessEnded(let request, let presence):
            return .accessEnded(request, presence: presence)
        case .itemMoved(let request, let from, let to):
            return .itemMoved(request, from: from, to: to)
        case .cancelRequested(let request):
            return .cancelRequested(request)
        case .presenterReplied(let message, let failure):
            return .presenterReplied(message, failure: failure)
        case .versionsChanged(let path, let notice):
            return .itemVersionsChanged(path, notice)
        case .hello, .welcome, .refused, .snapshotRequest, .redeclared, .grant, .fail, .deliver, .snapshotResponse,
            .handOverBoard, .packageExtensions:
            return nil
        }
    }

    /// The frame that carries `action` to its client; nil for ``ClientAction/unavailable(_:_:)``, which a
    /// client's connection reports to itself.
    init?(_ action: ClientAction) {
        switch action {
        case .grant(let request, let paths, let reportsPresence):
            self = .grant(request, paths: paths, reportsPresence: reportsPresence)
        case .fail(let request, let failure): self = .fail(request, failure)
        case .deliver(let delivery): self = .deliver(delivery)
        case .unavailable: return nil
        }
    }

    /// The action this frame carries; nil for frames that are not actions.
    var clientAction: ClientAction? {
        switch self {
        case .grant(let request, let paths, let reportsPresence):
            return .grant(request, paths: paths, reportsPresence: reportsPresence)
        case .fail(let request, let failure):
            return .fail(request, failure)
        case .deliver(let delivery):
            return .deliver(delivery)
        case .hello, .welcome, .refused, .presenterRegistered, .presenterMoved, .presenterRemoved, .accessRequested,
            .accessEnded, .itemMoved, .cancelRequested, .presenterReplied, .snapshotRequest, .redeclared, .snapshotResponse,
            .versionsChanged, .handOverBoard, .packageExtensions:
            return nil
        }
    }
}
