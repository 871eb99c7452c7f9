import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import StoreCore

/// Serves the commonest request of a document store, a plain `GET /documents/{id}/content` of an open document,
/// on the connection's event loop, the way nginx serves a static file: no task, no router, no middleware.
///
/// Hummingbird hands every request to a Swift task through an async channel and back; for a 100 KB body that
/// round costs more than the kernel's copy of the body (measured: Hummingbird alone serving the bytes from memory
/// reaches 0.60–0.77× nginx's rate on this machine). ``ContentFastPathHandler`` sits between NIO's HTTP/1 decoder
/// and Hummingbird's codec and answers a request itself only when the answer is already in memory and the request
/// asks for nothing else; every other request — conditional (`If-Match`, `If-None-Match`, …), ranged, with a
/// body, with a query, `Connection: close`, HTTP/1.0, a document not open or changed since it was last answered —
/// goes to Hummingbird's route, which answers every case. Its responses carry the route's headers (type, tag,
/// `Accept-Ranges`, length, `X-Request-ID`, `Date`, `Server`), and are counted and logged as the route's are.
struct ContentFastPath: Sendable {
    let library: DocumentLibrary
    let metrics: HTTPMetrics
    let logger: Logger
    let logLevel: Logger.Level
    let serverName: String?

    /// The route's name in metrics and logs, as Hummingbird names it.
    static let route = "/documents/{id}/content"
    static let prefix = "/documents/"
    static let suffix = "/content"
    /// Request headers that need the route's handling.
    static let declines: [String] = [
        "if-match", "if-none-match", "if-modified-since", "if-unmodified-since", "if-range", "range", "content-length",
        "transfer-encoding", "expect", "upgrade",
    ]

    /// The document a request asks the fast path for, if it is one it takes.
    static func documentID(of head: HTTPRequestHead) -> DocumentID? {
        guard head.method == .GET, head.version == .http1_1 else { return nil }
        let uri = head.uri
        guard uri.hasPrefix(prefix), uri.hasSuffix(suffix), uri.utf8.count > prefix.utf8.count + suffix.utf8.count
        else { return nil }
        let id = uri.dropFirst(prefix.count).dropLast(suffix.count)
        guard let documentID = DocumentID(rawValue: String(id)) else { return nil }
        for name in declines where head.headers.contains(name: name) { return nil }
        if head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) { return nil }
        return documentID
    }

    /// The response to `head` if the fast path takes it: head and body.
    func answer(_ head: HTTPRequestHead, date: String) -> (HTTPResponseHead, ByteBuffer)? {
        let start = ContinuousClock.now
        guard let id = Self.documentID(of: head), let (bytes, tag) = library.cachedContent(id) else { return nil }
        let requestID = RequestID().description
        var headers = HTTPHeaders()
        headers.reserveCapacity(8)
        headers.add(name: "Content-Type", value: "application/pdf")
        headers.add(name: "ETag", value: tag.headerValue)
        headers.add(name: "Accept-Ranges", value: "bytes")
        headers.add(name: "Content-Length", value: String(bytes.readableBytes))
        headers.add(name: "X-Request-ID", value: requestID)
        headers.add(name: "Date", value: date)
        if let serverName { headers.add(name: "Server", value: serverName) }
        var requestLogger = logger
        if logger.logLevel <= logLevel { requestLogger[metadataKey: "hb.request.id"] = .string(requestID) }
        RequestTelemetryMiddleware.observe(
            method: .get, path: head.uri, route: Self.route, status: .ok, duration: ContinuousClock.now - start,
            document: id.rawValue, logger: requestLogger, level: logLevel, metrics: metrics)
        return (HTTPResponseHead(version: .http1_1, status: .ok, headers: headers), bytes)
    }
}

extension ContentFastPath {
    /// The fast path of `library`, its answers counted in HTTP metrics on `metrics`' registry.
    init(library: DocumentLibrary, metrics: StoreMetrics, logger: Logger, logLevel: Logger.Level, serverName: String?) {
        self.init(
            library: library, metrics: HTTPMetrics(metrics), logger: logger, logLevel: logLevel,
            serverName: serverName)
    }
}

/// The channel handler of ``ContentFastPath``, one per connection, between NIO's HTTP/1 decoder and Hummingbird's
/// codec. It answers a request itself only while no earlier request of the connection is still with Hummingbird,
/// so responses keep the order of their requests.
final class ContentFastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let fastPath: ContentFastPath
    /// Requests handed to Hummingbird whose response has not ended.
    private var forwarded = 0
    /// The answer to the request being read, sent once its end arrives.
    private var answer: (HTTPResponseHead, ByteBuffer)?
    /// The `Date` header of the current second.
    private var date: (second: Int, text: String) = (-1, "")
    /// Answers written but not yet taken by the kernel.
    private var unsent = 0
    /// A request to close when idle (graceful shutdown) held until the answers are sent: Hummingbird, which
    /// never sees them, would otherwise close the connection under an answer still being written.
    private var heldQuiesce: Any?

    init(fastPath: ContentFastPath) {
        self.fastPath = fastPath
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if forwarded == 0, let answer = fastPath.answer(head, date: currentDate()) {
                self.answer = answer
                return
            }
            forwarded += 1
        case .body:
            if answer != nil { return }
        case .end:
            if let (head, body) = answer {
                answer = nil
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                unsent += 1
                let sent = context.eventLoop.makePromise(of: Void.self)
                sent.futureResult.assumeIsolated().whenComplete { _ in
                    self.unsent -= 1
                    if self.unsent == 0, let event = self.heldQuiesce {
                        self.heldQuiesce = nil
                        context.fireUserInboundEventTriggered(event)
                    }
                }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: sent)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, unsent > 0 || answer != nil {
            heldQuiesce = event
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { forwarded = max(0, forwarded - 1) }
        context.write(data, promise: promise)
    }

    /// The `Date` header value (RFC 9110's IMF-fixdate), formatted once a second.
    private func currentDate() -> String {
        let now = time(nil)
        if now == date.second { return date.text }
        let text = HTTPDate.text(at: now)
        date = (now, text)
        return text
    }
}

/// Hummingbird's HTTP/1 child channel with, in front of its codec: ``ResponseVersionHandler`` (HTTP/1.0 answered as
/// HTTP/1.0), ``MalformedRequestProblemHandler`` (a problem for a request that cannot be parsed),
/// ``ResponseBacklogHandler`` (unsent answer bytes; closes that let them leave), ``ConnectionDeadlineHandler``
/// (timeouts, early answers close) and ``ContentFastPathHandler``.
struct StoreHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    private let http1: HTTP1Channel
    private let fastPath: ContentFastPath
    private let headerTimeout: Duration
    private let idleTimeout: Duration
    private let bodyPace: ConnectionDeadlines.BodyPace

    init(
        responder: @escaping HTTPChannelHandler.Responder, fastPath: ContentFastPath, headerTimeout: Duration,
        idleTimeout: Duration, bodyPace: ConnectionDeadlines.BodyPace
    ) {
        http1 = HTTP1Channel(responder: responder)
        self.fastPath = fastPath
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.bodyPace = bodyPace
    }

    var responder: HTTPChannelHandler.Responder { http1.responder }

    /// Hummingbird's pipeline, then just after the request decoder, in this order: the version handler, the
    /// problem for a malformed request, the backlog, the deadlines and the fast path (every answer, the fast
    /// path's too, passes the handlers nearer the decoder on its way out).
    /// Fails when the pipeline has no HTTP/1 request decoder (Hummingbird changed its pipeline): the connection is
    /// closed, nothing is answered wrongly.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let fastPath = fastPath
        let (headerTimeout, idleTimeout, bodyPace, metrics) = (headerTimeout, idleTimeout, bodyPace, fastPath.metrics)
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(ContentFastPathHandler(fastPath: fastPath), position: .after(decoder))
            let deadlines = ConnectionDeadlineHandler(
                headerTimeout: headerTimeout, idleTimeout: idleTimeout, bodyPace: bodyPace, metrics: metrics,
                logger: logger)
            try operations.addHandler(deadlines, position: .after(decoder))
            // Nearer the decoder than the deadlines: their closes wait for the answer's unsent bytes.
            try operations.addHandler(
                ResponseBacklogHandler(idleTimeout: idleTimeout), position: .after(decoder))
            try operations.addHandler(MalformedRequestProblemHandler(), position: .after(decoder))
            // First after the decoder: every answer (the fast path's too) passes it on its way out.
            try operations.addHandler(ResponseVersionHandler(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}

extension StoreHTTP1Channel {
    /// Hummingbird's HTTP/1 child channel over a responder, with the connection deadlines of `library`'s
    /// configuration (``ConnectionDeadlineHandler``) and its content fast path (``ContentFastPath``).
    static func store(
        library: DocumentLibrary, metrics: StoreMetrics, logger: Logger, logLevel: Logger.Level, serverName: String?
    ) -> @Sendable (@escaping HTTPChannelHandler.Responder) -> StoreHTTP1Channel {
        let fastPath = ContentFastPath(
            library: library, metrics: metrics, logger: logger, logLevel: logLevel, serverName: serverName)
        let configuration = library.configuration
        return { responder in
            StoreHTTP1Channel(
                responder: responder, fastPath: fastPath, headerTimeout: configuration.headerTimeout,
                idleTimeout: configuration.idleTimeout,
                bodyPace: .init(
                    minimumRate: configuration.minBodyBytesPerSecond, grace: configuration.bodyGrace,
                    deadline: configuration.bodyTimeout))
        }
    }
}

extension HTTPServerBuilder {
    /// Hummingbird's HTTP/1 server with the store's child channel (``StoreHTTP1Channel/store(library:metrics:logger:logLevel:serverName:)``).
    static func store(
        library: DocumentLibrary, metrics: StoreMetrics, logger: Logger, logLevel: Logger.Level, serverName: String?
    ) -> HTTPServerBuilder {
        let childChannel = StoreHTTP1Channel.store(
            library: library, metrics: metrics, logger: logger, logLevel: logLevel, serverName: serverName)
        return .init { responder in childChannel(responder) }
    }
}
