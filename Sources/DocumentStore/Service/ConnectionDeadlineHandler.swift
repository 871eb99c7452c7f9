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

    private let metrics: HTTPMetrics?

    init(
        headerTimeout: Duration, idleTimeout: Duration, bodyPace: ConnectionDeadlines.BodyPace = .unbounded,
        metrics: HTTPMetrics? = nil, logger: Logger
    ) {
        deadlines = ConnectionDeadlines(
            now: .now, headerTimeout: headerTimeout, idleTimeout: idleTimeout, bodyPace: bodyPace)
        self.metrics = metrics
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
        case .body(let buffer): deadlines.bodyArrived(buffer.readableBytes, now: .now)
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
        case .bodyTooSlow:
            // The request's handler still waits for the body: this answer is the connection's last, written here,
            // and the handler's body ends with the connection (its upload's file and budget go at once).
            let pace = deadlines.bodyPace
            logger.debug(
                "closing a connection: its request body came slower than \(pace.minimumRate) bytes a second")
            metrics?.slowBodiesCut.increment()
            let body = Self.slowBodyProblem(pace)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/problem+json")
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            headers.add(name: "Connection", value: "close")
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .requestTimeout, headers: headers))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
            return
        }
        context.close(promise: nil)
    }

    /// The 408 problem of a body cut for its pace, with the limits it broke.
    static func slowBodyProblem(_ pace: ConnectionDeadlines.BodyPace) -> ByteBuffer {
        let deadline = pace.deadline.components.seconds
        let grace = pace.grace.components.seconds
        let detail =
            "the request body came slower than \(pace.minimumRate) bytes a second on average after its first "
            + "\(grace) seconds, or took longer than \(deadline) seconds: send it faster, or ask the operator to lower "
            + "minBodyBytesPerSecond or raise bodyTimeoutSeconds"
        let json =
            #"{"type":"/problems/body-too-slow","title":"Request body too slow","status":408,"detail":""#
            + detail + #"","minimumBytesPerSecond":\#(pace.minimumRate),"graceSeconds":\#(grace),"#
            + #""bodyTimeoutSeconds":\#(deadline)}"#
        return ByteBuffer(string: json)
    }
}
