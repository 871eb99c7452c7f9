import QuireAPI

/// One page of `GET /documents`: documents in listing order (when each entered the store, oldest first, ties by
/// id), and `next`, the opaque cursor of the page after it (nil on the last page). With `updatedSince` a page may
/// hold fewer documents than the limit (even none) while more follow: follow `next` until it is nil.
/// openapi.yaml's `DocumentList`, generated in QuireAPI.
public typealias DocumentListPage = Components.Schemas.DocumentList
