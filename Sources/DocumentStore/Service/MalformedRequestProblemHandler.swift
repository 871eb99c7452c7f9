import NIOCore
import NIOHTTP1

/// Gives Hummingbird's answer to a request NIO cannot parse (a malformed request line or header: `400` with an empty
/// body, then the connection closes) the problem document every other 4xx has. One per connection, just after NIO's
/// HTTP/1 request decoder; every other answer passes unchanged (the routes' errors are problems already, never an
/// empty 400).
final class MalformedRequestProblemHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The problem's body, written before the end of the answer whose head it replaced.
    private var body: ByteBuffer?

    /// The problem sent for a request that cannot be parsed.
    static let problem = ProblemDetails(
        status: .badRequest,
        detail: "the request is not valid HTTP/1.1 (its request line or a header cannot be parsed); the connection "
            + "closes")

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head)
        where head.status == .badRequest && head.headers["content-length"] == ["0"]
            && !head.headers.contains(name: "content-type"):
            let buffer = context.channel.allocator.buffer(bytes: Self.problem.body)
            head.headers.replaceOrAdd(name: "content-type", value: ProblemDetails.mediaType)
            head.headers.replaceOrAdd(name: "content-length", value: String(buffer.readableBytes))
            body = buffer
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where body != nil:
            context.write(wrapOutboundOut(.body(.byteBuffer(body!))), promise: nil)
            body = nil
            context.write(data, promise: promise)
        case .head, .body, .end:
            context.write(data, promise: promise)
        }
    }
}
