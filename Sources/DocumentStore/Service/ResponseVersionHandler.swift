import NIOCore
import NIOHTTP1

/// Answers each request in its own HTTP version, one per connection just after NIO's HTTP/1 request decoder.
///
/// Hummingbird's codec turns every request into a version-less `HTTPRequest` and every answer into an HTTP/1.1
/// head, so an HTTP/1.0 client would get `HTTP/1.1`, a chunked body it cannot read, and a connection left open.
/// This handler remembers the version of each request (in order: pipelined requests are answered in order) and
/// rewrites the answer to an HTTP/1.0 request: `HTTP/1.0`, never `Transfer-Encoding` (NIO's encoder then writes the
/// body as it is, delimited by the end of the connection), and `Connection: close` (the connection closes once the
/// answer is sent) unless the client asked for `Connection: keep-alive` and the answer has a `Content-Length`, when
/// it says `Connection: keep-alive`. Answers to HTTP/1.1 requests pass unchanged.
final class ResponseVersionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What an answer must respect of its request.
    private struct Asked {
        var version: HTTPVersion
        var keepAlive: Bool
    }

    /// The requests whose answer has not started, oldest first.
    private var unanswered = CircularBuffer<Asked>(initialCapacity: 2)
    /// The answer being written closes the connection once sent.
    private var closesAfterAnswer = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            unanswered.append(Asked(version: head.version, keepAlive: head.isKeepAlive))
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            // An interim answer (100 Continue) is followed by the final one, which answers the same request.
            guard head.status.code >= 200 || head.status == .switchingProtocols,
                let asked = unanswered.popFirst()
            else {
                context.write(data, promise: promise)
                return
            }
            guard asked.version.major == 1, asked.version.minor == 0 else {
                context.write(data, promise: promise)
                return
            }
            head.version = .http1_0
            head.headers.remove(name: "transfer-encoding")
            let saysClose = head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }
            let keepsAlive = asked.keepAlive && !saysClose && head.headers.contains(name: "content-length")
            head.headers.replaceOrAdd(name: "connection", value: keepsAlive ? "keep-alive" : "close")
            closesAfterAnswer = !keepsAlive
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closesAfterAnswer else {
                context.write(data, promise: promise)
                return
            }
            closesAfterAnswer = false
            let sent = context.eventLoop.makePromise(of: Void.self)
            sent.futureResult.cascade(to: promise)
            sent.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            context.write(data, promise: sent)
        }
    }
}
