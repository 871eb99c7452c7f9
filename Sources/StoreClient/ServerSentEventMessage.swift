/// One event as a client of a `text/event-stream` receives it (WHATWG HTML, "Server-sent events").
public struct ServerSentEventMessage: Sendable, Hashable {
    /// The last event id set by the stream when the event was dispatched (`id:`), empty when none was.
    public var lastEventID: String
    /// The event type (`event:`); `message` when the stream names none.
    public var event: String
    /// The data (`data:` lines joined with line feeds).
    public var data: String

    /// Makes a message.
    public init(lastEventID: String = "", event: String = "message", data: String) {
        self.lastEventID = lastEventID
        self.event = event
        self.data = data
    }
}
