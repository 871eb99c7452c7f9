import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle
import StoreCore

/// `GET /events`: the change feed as Server-Sent Events. A client that sends `Last-Event-ID` first gets every
/// later event from the persisted log, then live events (none lost or repeated between the two); a comment
/// line keeps an idle connection alive; a graceful shutdown ends the stream (the client resumes elsewhere, or
/// later, with `Last-Event-ID`). A `Last-Event-ID` beyond the newest event of the log is refused (400): no live
/// event would ever reach such a client. A client too slow for the live feed (its connection holds more than
/// ``backlogBound`` unsent bytes, or more events wait for it than the broadcaster's bound) gets a final `resume`
/// event naming the last id it was sent, and its stream ends cleanly (never cut mid-event, never skipped ahead): it
/// resumes with `Last-Event-ID`, and the log replays what it missed.
public struct EventsController: RouteController {
    private let library: DocumentLibrary

    /// Makes the controller.
    public init(library: DocumentLibrary) {
        self.library = library
    }

    /// The most bytes a reader's connection may hold unsent in the service (the kernel's send buffer aside) before
    /// its stream is ended with a `resume` event.
    static let backlogBound = 32 * 1024

    /// The kernel send buffer asked for an event stream's socket (Linux reserves twice as much). Small, so that a
    /// reader that does not read costs little kernel memory, and a slow one makes progress (the kernel takes more
    /// once half its buffer is free) often enough for the idle timeout.
    static let socketSendBuffer: SocketOptionValue = 16 * 1024

    /// `/events`.
    public var mountPath: RouterPath { "/events" }

    /// The one route.
    public var routes: RouteCollection<StoreRequestContext> {
        let routes = RouteCollection(context: StoreRequestContext.self)
        routes.get { [library] request, context in
            let lastSeen = try StoreEvent.lastEventID(in: request.headers)
            if let lastSeen {
                let newest = try await library.catalog.lastEventID()
                if lastSeen > newest { throw ProblemDetails.futureEventID(lastSeen, newest: newest) }
            }
            // Subscribe before reading the log: an event recorded in between is in both, and sent once.
            let live = library.events.subscribe()
            let catalog = library.catalog
            let backlog = await ResponseBacklog.of(context.channel)
            // The kernel's share of a reader that does not read is bounded too (Linux doubles the figure).
            _ = try? await context.channel.setOption(
                ChannelOptions.socketOption(.so_sndbuf), value: Self.socketSendBuffer
            ).get()
            let body = ResponseBody { writer in
                // Without Last-Event-ID: no replay, and every live event (all are newer than the subscription).
                var sent = lastSeen ?? 0
                // Checked before every write, so that the writes never wait for the reader (NIO's watermark, 64 KiB,
                // is above the bound): a reader the service gives up on gets its final event at once.
                var isBehind: Bool { (backlog?.bytes ?? 0) > Self.backlogBound }
                replay: if lastSeen != nil {
                    while true {
                        let missed = try await catalog.events(after: sent, limit: 500)
                        for event in missed {
                            if isBehind {
                                live.fellBehind()
                                break replay
                            }
                            try await writer.write(ByteBuffer(string: event.serverSentEvent.encoded))
                            sent = event.id ?? sent
                        }
                        if missed.count < 500 { break }
                    }
                }
                // A reader that fell behind during the replay gets no live event: they would follow a gap.
                if !live.wasCutOff {
                    try await writer.write(ByteBuffer(string: ServerSentEvent.comment("connected")))
                    // An endless stream would hold a graceful shutdown forever: end it when the server stops.
                    for await item in live.items.cancelOnGracefulShutdown() {
                        if isBehind {
                            live.fellBehind()
                            break
                        }
                        switch item {
                        case .event(let event):
                            guard let id = event.id, id > sent else { continue }
                            try await writer.write(ByteBuffer(string: event.serverSentEvent.encoded))
                            sent = id
                        case .keepAlive:
                            try await writer.write(ByteBuffer(string: ServerSentEvent.comment()))
                        }
                    }
                }
                if live.wasCutOff {
                    // The last word to a reader that fell too far behind: where to resume. It has no `id:`, so a
                    // browser's EventSource reconnects with the Last-Event-ID of the last event it got.
                    try await writer.write(ByteBuffer(string: ServerSentEvent.resume(after: sent).encoded))
                }
                try await writer.finish(nil)
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: ServerSentEvent.mediaType, .cacheControl: "no-store",
                    HTTPField.Name("X-Accel-Buffering")!: "no",
                ],
                body: body)
        }
        return routes
    }
}
