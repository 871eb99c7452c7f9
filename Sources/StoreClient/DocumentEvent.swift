import QuireAPI

/// One event of the service's change feed (`GET /events`), the `data` of a Server-Sent Event: openapi.yaml's
/// `Event`, generated in QuireAPI.
///
/// Its members: the event's `id` (ids only grow, across restarts of the service too); what happened (`type`);
/// the `document`; the document's validator (`etag`), version and content tag after the event, when it has them
/// (every event of one document names a greater version than the last; nil for events recorded before versions
/// existed); when it happened (`at`); and what the type adds: `from` and `to` for `moved`, `conflict` for
/// `conflict`, `resolution` for `resolved`, `file` for a change, deletion or conflict caused by a file, and
/// `restoredVersion` for a `changed` by a version's restore.
public typealias DocumentEvent = Components.Schemas.Event

extension Components.Schemas.Event {
    /// What happened: `created`, `changed`, `moved`, `deleted`, `conflict`, `resolved`, `saved` or `damaged`.
    public typealias EventType = _TypePayload

    /// What happened (the generator names the member `_type`, `type` being one of its reserved words).
    public var type: EventType { _type }
}
