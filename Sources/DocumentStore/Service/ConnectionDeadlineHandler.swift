import Logging
import NIOCore
import NIOHTTP1
import StoreCore

/// The executor of ``ConnectionDeadlines``, one per connection, just after NIO's HTTP/1 request decoder: it feeds
/// the machine what the connection does (bytes read, request parts, response parts written), keeps one timer for
/// the machine's deadline, and closes the connection when the machine says so. A response sent before its
/// request's body was read gets `Connection: close` and the connection closes once it is sent, so that an
/// unwanted body (too large, refused) is never read.
final class ConnectionDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var deadlines: ConnectionDeadlines
    private let logger: Logger
    /// The timer and the instant it fires at.
    private var timer: (task: Scheduled<Void>, at: ContinuousClock.Instant)?

    init(headerTimeout: Duration, idleTimeout: Duration, logger: Logger) {
        deadlines = ConnectionDeadlines(
            now: .now, headerTimeout: headerTimeout, idleTimeout: idleTimeout)
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadlines.requestHeadArrived(now: .now)
        case .body: deadlines.bytesArrived(now: .now)
        case .end: deadlines.requestEnded(now: .now)
        }
        arm(context: context)
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        deadlines.bytesArrived(now: .now)
        arm(context: context)
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            if deadlines.responseHeadWritten(now: .now) {
                head.headers.replaceOrAdd(name: "Connection", value: "close")
                context.write(wrapOutboundOut(.head(head)), promise: promise)
            } else {
                context.write(data, promise: promise)
            }
        case .body:
            deadlines.responseBodyWritten(now: .now)
            context.write(data, promise: promise)
        case .end:
            guard let reason = deadlines.responseEnded(now: .now) else {
                context.write(data, promise: promise)
                break
            }
            let sent = context.eventLoop.makePromise(of: Void.self)
            sent.futureResult.cascade(to: promise)
            sent.futureResult.assumeIsolated().whenComplete { _ in self.close(context: context, reason) }
            context.write(data, promise: sent)
        }
        arm(context: context)
    }

    /// Keeps the one timer in step with the machine's deadline: set when there is none, moved when the deadline
    /// came earlier; a timer set for an earlier instant (or while there is no deadline, as while the service
    /// works on an answer) is left to fire, and the machine says to wait on. So a request costs no timer churn:
    /// the idle timer set after one answer usually still stands after the next.
    private func arm(context: ChannelHandlerContext) {
        guard let deadline = deadlines.deadline else { return }
        if let timer, timer.at <= deadline { return }
        disarm()
        let delay = deadline - .now
        let nanoseconds = max(
            0, delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)
        let task = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) {
            self.timer = nil
            switch self.deadlines.deadlineReached(now: .now) {
            case .close(let reason): self.close(context: context, reason)
            case .wait: self.arm(context: context)
            }
        }
        timer = (task, deadline)
    }

    private func disarm() {
        timer?.task.cancel()
        timer = nil
    }

    private func close(context: ChannelHandlerContext, _ reason: ConnectionDeadlines.Reason) {
        disarm()
        switch reason {
        case .headerTimeout:
            logger.debug("closing a connection: no complete request head within \(deadlines.headerTimeout)")
        case .idleTimeout:
            logger.debug("closing an idle connection after \(deadlines.idleTimeout)")
        case .answeredEarly:
            break
        }
        context.close(promise: nil)
    }
}
