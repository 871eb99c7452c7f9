import StoreCore

/// One event of a `text/event-stream` (WHATWG HTML, "Server-sent events"), and the encoding the service writes.
///
/// Field values cannot hold line breaks: `data` is split into one `data:` line per line (the client joins them
/// with line feeds again); in `id` and `event`, line breaks and NUL, which would break the stream or make the
/// client ignore the id, are dropped.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event id the client remembers and sends back as `Last-Event-ID` when it reconnects.
    public var id: String?
    /// The event type (the client's `addEventListener` name); nil means `message`.
    public var event: String?
    /// The payload; may span lines.
    public var data: String
    /// How long the client should wait before reconnecting, in milliseconds.
    public var retry: Int?

    /// The media type of the stream.
    public static let mediaType = "text/event-stream"

    /// Makes an event.
    public init(id: String? = nil, event: String? = nil, data: String, retry: Int? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }

    /// The event as stream text: `id:`, `event:`, `retry:` and `data:` lines, then the blank line that makes
    /// the client dispatch it.
    public var encoded: String {
        var text = ""
        if let id { text += "id: " + Self.singleLine(id) + "\n" }
        if let event { text += "event: " + Self.singleLine(event) + "\n" }
        if let retry { text += "retry: \(max(0, retry))\n" }
        for line in Self.lines(of: data) { text += "data: " + line + "\n" }
        return text + "\n"
    }

    /// The final event of a stream that ends because its reader fell too far behind the live feed:
    /// `event: resume` with `{"lastEventId": N, "reason": …}`, and no `id:` (the reader resumes with the
    /// `Last-Event-ID` of the last event it got, `N`).
    public static func resume(after lastEventID: Int64) -> ServerSentEvent {
        ServerSentEvent(
            id: nil, event: "resume",
            data: #"{"lastEventId":\#(lastEventID),"reason":"this reader fell too far behind the live feed: "#
                + #"reconnect with Last-Event-ID \#(lastEventID) and the log replays what followed"}"#)
    }

    /// A comment (`: text`), which clients ignore: sent every few seconds it keeps proxies and the client from
    /// closing an idle stream.
    public static func comment(_ text: String = "keep-alive") -> String {
        lines(of: text).map { ": " + $0 + "\n" }.joined() + "\n"
    }

    /// The lines of `text`, split at CRLF, CR or LF as the client splits the stream.
    static func lines(of text: String) -> [Substring] {
        text.replacingLineBreaks().split(separator: "\n", omittingEmptySubsequences: false)
    }

    private static func singleLine(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\n" && $0 != "\r" && $0 != "\0" })
    }
}

extension String {
    /// The text with every CRLF and CR turned into LF.
    fileprivate func replacingLineBreaks() -> String {
        var result = ""
        var previousWasCarriageReturn = false
        for scalar in unicodeScalars {
            switch scalar {
            case "\r":
                result.unicodeScalars.append("\n")
                previousWasCarriageReturn = true
            case "\n" where previousWasCarriageReturn:
                previousWasCarriageReturn = false
            default:
                result.unicodeScalars.append(scalar)
                previousWasCarriageReturn = false
            }
        }
        return result
    }
}
