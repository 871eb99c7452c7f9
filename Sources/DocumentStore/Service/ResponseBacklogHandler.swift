import NIOCore
import NIOHTTP1
import Synchronization

/// The bytes of answer bodies a connection was handed and the kernel has not taken yet: what a client that reads
/// slowly, or not at all, makes the service hold for it. Read from any thread; kept by ``ResponseBacklogHandler``.
final class ResponseBacklog: Sendable {
    private let unsent = Atomic<Int>(0)

    /// The body bytes handed to the connection and not yet written to its socket.
    var bytes: Int { unsent.load(ordering: .relaxed) }

    fileprivate func add(_ count: Int) {
        unsent.add(count, ordering: .relaxed)
    }

    fileprivate func remove(_ count: Int) {
        unsent.subtract(count, ordering: .relaxed)
    }

    /// The backlog of the connection `channel` (nil when it has no ``ResponseBacklogHandler``, as in a test
    /// without the service's pipeline).
    static func of(_ channel: any Channel) async -> ResponseBacklog? {
        try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: ResponseBacklogHandler.self).backlog
        }.get()
    }
}

/// Keeps a connection's ``ResponseBacklog``, and lets the answer already handed to the connection leave before it
/// closes: a close (`.all`) asked while written parts are still unsent waits for them as long as they move, and at
/// most `idleTimeout` after the last part was handed or sent. So an event stream the service ends (its final
/// event, its terminating chunk) reaches a reader that takes its bytes, even when the idle timeout's close comes
/// first; a reader that takes nothing is closed one idle timeout later.
final class ResponseBacklogHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    let backlog = ResponseBacklog()
    private let idleTimeout: Duration
    /// Parts written whose promise has not completed.
    private var unsentParts = 0
    /// The last time a part was handed or sent.
    private var lastProgress = NIODeadline.now()
    /// A close that waits for the unsent parts, and its timer.
    private var waitingClose: (promise: EventLoopPromise<Void>?, timer: Scheduled<Void>?)?

    init(idleTimeout: Duration) {
        self.idleTimeout = idleTimeout
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes: Int
        if case .body(let part) = unwrapOutboundIn(data) { bytes = part.readableBytes } else { bytes = 0 }
        unsentParts += 1
        backlog.add(bytes)
        lastProgress = .now()
        let sent = context.eventLoop.makePromise(of: Void.self)
        sent.futureResult.assumeIsolated().whenComplete { _ in
            self.unsentParts -= 1
            self.backlog.remove(bytes)
            self.lastProgress = .now()
            if self.unsentParts == 0 { self.closeIfWaiting(context: context) }
        }
        sent.futureResult.cascade(to: promise)
        context.write(data, promise: sent)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, unsentParts > 0, context.channel.isActive, waitingClose == nil else {
            context.close(mode: mode, promise: promise)
            return
        }
        waitingClose = (promise, nil)
        scheduleCheck(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // Removed as the channel closes: the close it waited for happened.
        guard let waiting = waitingClose else { return }
        waitingClose = nil
        waiting.timer?.cancel()
        waiting.promise?.succeed(())
    }

    /// Closes when nothing moved for the idle timeout; else looks again when it would have.
    private func scheduleCheck(context: ChannelHandlerContext) {
        let (seconds, attoseconds) = idleTimeout.components
        let deadline = lastProgress + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        guard deadline > .now() else {
            closeIfWaiting(context: context)
            return
        }
        let timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.waitingClose?.timer = nil
            self.scheduleCheck(context: context)
        }
        waitingClose?.timer = timer
    }

    private func closeIfWaiting(context: ChannelHandlerContext) {
        guard let waiting = waitingClose else { return }
        waitingClose = nil
        waiting.timer?.cancel()
        context.close(mode: .all, promise: waiting.promise)
    }
}
