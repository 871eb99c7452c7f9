import AsyncHTTPClient
import Foundation
import NIOCore

/// The service's change feed (`GET /events`) as an asynchronous sequence of events, in order, each once.
///
/// The feed parses the Server-Sent Events stream, remembers the id of the last event it delivered, and when the
/// connection drops (the service restarted, the network failed) connects again with `Last-Event-ID`, so that
/// the service replays what was missed from its log; events it has delivered already are skipped. It never
/// ends by itself: iteration throws ``StoreClientError/eventStreamLost(server:attempts:reason:)`` after
/// ``ReconnectPolicy/maximumAttempts`` failed attempts in a row, and the first connection's error (such as
/// `.unreachable`) at once.
///
/// An event whose `type` this client does not know (one a newer service added) is passed over, and the feed resumes
/// after it like after any other: `DocumentEvent.EventType` lists the types of `openapi.yaml` this client was made
/// from. Any other event that is not an `Event` ends the feed with ``StoreClientError/unexpectedResponse(server:reason:)``.
public struct DocumentEventFeed: AsyncSequence, Sendable {
    /// The feed's events.
    public typealias Element = DocumentEvent

    /// A change of the feed's connection, for a caller that reports it.
    public enum ConnectionChange: Sendable, Hashable {
        /// Connected; the service replays the events after this id first (nil: only new events).
        case connected(resumingAfter: Int64?)
        /// The connection dropped, for this reason; the feed tries again.
        case disconnected(reason: String)
    }

    let client: StoreClient
    let lastEventID: Int64?
    let policy: ReconnectPolicy
    let onConnectionChange: (@Sendable (ConnectionChange) -> Void)?

    init(
        client: StoreClient, lastEventID: Int64?, policy: ReconnectPolicy,
        onConnectionChange: (@Sendable (ConnectionChange) -> Void)? = nil
    ) {
        self.client = client
        self.lastEventID = lastEventID
        self.policy = policy
        self.onConnectionChange = onConnectionChange
    }

    /// The same feed, calling `observer` on every connection and disconnection.
    public func onConnectionChange(_ observer: @escaping @Sendable (ConnectionChange) -> Void) -> DocumentEventFeed {
        DocumentEventFeed(client: client, lastEventID: lastEventID, policy: policy, onConnectionChange: observer)
    }

    /// Starts iterating: the first call to `next()` connects.
    public func makeAsyncIterator() -> Iterator {
        Iterator(feed: self)
    }

    /// Delivers the feed's events; see ``DocumentEventFeed``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The id of the last event delivered (or the one the feed started after).
        public private(set) var lastEventID: Int64?
        private let feed: DocumentEventFeed
        private var body: HTTPClientResponse.Body.AsyncIterator?
        private var parser = ServerSentEventParser()
        private var ready: [DocumentEvent] = []
        private var hasConnected = false
        /// Failed attempts in a row; a received byte starts the count again.
        private var failures = 0
        private var receivedSinceConnecting = false
        private var lastFailure = ""
        /// What ends the feed once the events read before it are delivered: an event that is not an Event.
        private var failure: (any Error)?

        init(feed: DocumentEventFeed) {
            self.feed = feed
            self.lastEventID = feed.lastEventID
        }

        /// The next event, waiting for it (and reconnecting) as long as it takes.
        /// - Throws: ``StoreClientError`` (see ``DocumentEventFeed``), or `CancellationError`.
        public mutating func next() async throws -> DocumentEvent? {
            while true {
                try Task.checkCancellation()
                if !ready.isEmpty { return ready.removeFirst() }
                if let failure { throw failure }
                if body == nil { try await connect() }
                let chunk: ByteBuffer?
                do {
                    chunk = try await body?.next()
                } catch {
                    if Task.isCancelled { throw CancellationError() }
                    dropped(reason: TransportFailure(error).reason)
                    continue
                }
                guard let chunk else {
                    dropped(reason: "the service closed the stream")
                    continue
                }
                failures = 0
                receivedSinceConnecting = true
                let messages: [ServerSentEventMessage]
                do {
                    messages = try parser.consume(chunk.readableBytesView)
                } catch {
                    throw StoreClientError.unexpectedResponse(server: feed.client.server, reason: error.description)
                }
                // An event it cannot read ends the feed after the events before it are delivered.
                do {
                    for message in messages { try accept(message) }
                } catch {
                    failure = error
                }
            }
        }

        /// Takes one message of the stream: decodes its event and queues it unless it was delivered already.
        private mutating func accept(_ message: ServerSentEventMessage) throws {
            // The service's last word to a reader that fell too far behind: the stream ends next, and the feed
            // resumes after the last event it delivered.
            if message.event == "resume" { return }
            let data = Data(message.data.utf8)
            let event: DocumentEvent
            do {
                event = try StoreClient.jsonDecoder.decode(DocumentEvent.self, from: data)
            } catch {
                if let newer = try? StoreClient.jsonDecoder.decode(UnknownEvent.self, from: data),
                    DocumentEvent.EventType(rawValue: newer.type) == nil
                {
                    let id = Int64(message.lastEventID) ?? newer.id
                    if lastEventID.map({ id > $0 }) ?? true { lastEventID = id }
                    return
                }
                throw StoreClientError.unexpectedResponse(
                    server: feed.client.server, reason: "an event's data is not an Event: \(message.data.prefix(200))")
            }
            let id = Int64(message.lastEventID) ?? event.id
            if let lastEventID, id <= lastEventID { return }
            lastEventID = id
            ready.append(event)
        }

        /// What the feed reads of an event of a type it does not know: its id and type.
        private struct UnknownEvent: Decodable {
            var id: Int64
            var type: String
        }

        private mutating func dropped(reason: String) {
            body = nil
            parser = ServerSentEventParser()
            lastFailure = reason
            if !receivedSinceConnecting { failures += 1 }
            feed.onConnectionChange?(.disconnected(reason: reason))
        }

        /// Connects, waiting between failed attempts; the first connection's error is thrown at once.
        private mutating func connect() async throws {
            while true {
                if failures >= feed.policy.maximumAttempts {
                    throw StoreClientError.eventStreamLost(
                        server: feed.client.server, attempts: failures, reason: lastFailure)
                }
                if failures > 0 { try await Task.sleep(for: feed.policy.delay(afterFailures: failures)) }
                do {
                    try await attempt()
                    hasConnected = true
                    receivedSinceConnecting = false
                    feed.onConnectionChange?(.connected(resumingAfter: lastEventID))
                    return
                } catch let error as StoreClientError {
                    guard hasConnected else { throw error }
                    if error.code == .problem, let problem = error.problem, problem.status < 500 { throw error }
                    failures += 1
                    lastFailure = Self.reason(error)
                }
            }
        }

        /// One `GET /events`, with `Last-Event-ID` when an event was seen.
        private mutating func attempt() async throws {
            var request = feed.client.request("/events")
            request.headers.add(name: "Accept", value: "text/event-stream")
            if let lastEventID { request.headers.add(name: "Last-Event-ID", value: String(lastEventID)) }
            let response = try await feed.client.execute(request)
            let status = Int(response.status.code)
            guard status == 200 else {
                let bytes = try? await response.body.collect(upTo: 64 * 1024)
                if status >= 400 {
                    throw StoreClient.error(
                        status: status, etag: response.headers.first(name: "ETag"),
                        body: bytes.map { Data($0.readableBytesView) } ?? Data(), path: "/events")
                }
                throw StoreClientError.unexpectedResponse(
                    server: feed.client.server, reason: "GET /events answered \(status)")
            }
            body = response.body.makeAsyncIterator()
        }

        private static func reason(_ error: StoreClientError) -> String {
            switch error.reason {
            case .unreachable(_, let reason, _): reason
            case .problem(let problem), .versionMismatch(_, _, _, let problem): "\(problem.status) \(problem.message)"
            case .unexpectedResponse(_, let reason): reason
            case .eventStreamLost(_, _, let reason): reason
            case .invalidServerURL(let url): url
            }
        }
    }
}
