import Foundation
import HTTPTypes
import StoreCore

extension StoreEvent {
    /// The event as `GET /events` sends it: `id: N`, `event: TYPE`, and one `data:` line holding
    /// `{"id": N, "type": TYPE, "document": ID, "etag": "...", "version": V, "contentEtag": "...", "at": RFC 3339}`
    /// plus the type-specific members of ``extra``. `etag` is the document's validator after the event (what its
    /// info is tagged with then), `contentEtag` its content's tag, both in header form (with their quotes) or
    /// null; `version` the document's version after the event (null for events from before versions).
    public var serverSentEvent: ServerSentEvent {
        var members: [String: String?] = extra.mapValues { $0 }
        members["type"] = type.rawValue
        members["document"] = documentID.rawValue
        members["etag"] = .some(validator?.headerValue)
        members["contentEtag"] = .some(etag?.headerValue)
        members["at"] = at.formatted(Self.timestampFormat)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var payload = EventPayload(id: id, version: version, members: members)
        payload.members.removeValue(forKey: "id")
        payload.members.removeValue(forKey: "version")
        // Strings, nulls and an integer always encode.
        let data = (try? encoder.encode(payload)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return ServerSentEvent(id: id.map(String.init), event: type.rawValue, data: data)
    }

    /// The id after which a reconnecting client's replay starts: its `Last-Event-ID`, or nil when it sent none.
    /// - Throws: ``ProblemDetails/malformedHeader(_:value:)`` (400) when the header is not a non-negative integer.
    public static func lastEventID(in headers: HTTPFields) throws(ProblemDetails) -> Int64? {
        guard let value = headers[.lastEventID] else { return nil }
        guard let id = Int64(value.trimmingWhitespace()), id >= 0 else {
            throw .malformedHeader(.lastEventID, value: value)
        }
        return id
    }

    /// The JSON object of an event: the id and the version as numbers, every other member a string or null.
    private struct EventPayload: Encodable {
        let id: Int64?
        let version: Int64?
        var members: [String: String?]

        private struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(id, forKey: Key(stringValue: "id"))
            try container.encode(version, forKey: Key(stringValue: "version"))
            for (name, value) in members { try container.encode(value, forKey: Key(stringValue: name)) }
        }
    }
}

extension HTTPField.Name {
    /// `Last-Event-ID`, which a reconnecting event-stream client sends.
    public static var lastEventID: Self { Self("Last-Event-ID")! }
}
