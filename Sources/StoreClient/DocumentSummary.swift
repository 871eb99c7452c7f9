import QuireAPI

/// One document of `GET /documents` (id, title, page count, size, validator, version, content tag, state, last
/// change): openapi.yaml's `DocumentSummary`, generated in QuireAPI.
public typealias DocumentSummary = Components.Schemas.DocumentSummary
