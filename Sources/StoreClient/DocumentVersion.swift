import QuireAPI

/// A version kept of one of a document's files (`GET /documents/{id}/versions`): the side a conflict resolution
/// dropped. openapi.yaml's `DocumentVersion`, generated in QuireAPI.
public typealias DocumentVersion = Components.Schemas.DocumentVersion
