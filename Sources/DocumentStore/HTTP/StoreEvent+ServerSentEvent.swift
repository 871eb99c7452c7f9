import Foundation
import HTTPTypes
import QuireAPI
import StoreCore

extension StoreEvent {
    /// The event as `GET /events` sends it: `id: N`, `event: TYPE`, and one `data:` line holding the event as
    /// `openapi.yaml`'s `Event` (QuireAPI's `Components.Schemas.Event`, built by its `init(_:)` from this event):
    /// `etag` is the document's validator after the event (what its info is tagged with then), `contentEtag` its
    /// content's tag, both in header form (with their quotes) or null; `version` the document's version after the
    /// event (null for events from before versions); the type-specific members (`from`, `file`, `reason`, …) only
    /// where the type has them. Keys sorted, the time in RFC 3339 with milliseconds.
    ///
    /// Only events read from the log are sent, and they have ids; one that has none yet would go out without an
    /// `id:` line and with `"id":0`.
    public var serverSentEvent: ServerSentEvent {
        let payload = Components.Schemas.Event(self)
        // A generated value of strings, integers and raw-value enums always encodes.
        let data = (try? DocumentRepresentations.encode(payload, nullMembers: Self.nullableMembers))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return ServerSentEvent(id: id.map(String.init), event: type.rawValue, data: data)
    }

    /// The members of the spec's `Event` that are null when absent (`etag`, `version`, `contentEtag`), looked up
    /// once rather than for every event sent.
    private static let nullableMembers = APISchemas.nullableMembers["Event"] ?? []

    /// The id after which a reconnecting client's replay starts: its `Last-Event-ID`, or nil when it sent none.
    /// - Throws: ``ProblemDetails/malformedHeader(_:value:)`` (400) when the header is not a non-negative integer.
    public static func lastEventID(in headers: HTTPFields) throws(ProblemDetails) -> Int64? {
        guard let value = headers[.lastEventID] else { return nil }
        guard let id = Int64(value.trimmingWhitespace()), id >= 0 else {
            throw .malformedHeader(.lastEventID, value: value)
        }
        return id
    }
}

extension Components.Schemas.Event {
    /// The event as the API describes it: its type-specific fields (``StoreEvent/extra``) as the members of those
    /// names (`conflict` and `resolution` when they hold one of the spec's values).
    init(_ event: StoreEvent) {
        let extra = event.extra
        self.init(
            id: event.id ?? 0, _type: _TypePayload(event.type), document: event.documentID.rawValue,
            etag: event.validator?.headerValue, version: event.version, contentEtag: event.etag?.headerValue,
            at: event.at, from: extra["from"], to: extra["to"], file: extra["file"],
            conflict: extra["conflict"].flatMap(Components.Schemas.ConflictType.init(rawValue:)),
            resolution: extra["resolution"].flatMap(Components.Schemas.ConflictResolution.init(rawValue:)),
            restoredVersion: extra["restoredVersion"], reason: extra["reason"])
    }
}

extension Components.Schemas.Event._TypePayload {
    /// The event type as the API names it.
    init(_ type: StoreEvent.EventType) {
        switch type {
        case .created: self = .created
        case .changed: self = .changed
        case .moved: self = .moved
        case .deleted: self = .deleted
        case .conflict: self = .conflict
        case .resolved: self = .resolved
        case .saved: self = .saved
        case .damaged: self = .damaged
        }
    }
}

extension HTTPField.Name {
    /// `Last-Event-ID`, which a reconnecting event-stream client sends.
    public static var lastEventID: Self { Self("Last-Event-ID")! }
}
