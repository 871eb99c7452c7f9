import QuireAPI

/// Why a document is in conflict (`deletion` or `modification`): openapi.yaml's `ConflictType`, generated in
/// QuireAPI.
public typealias ConflictType = Components.Schemas.ConflictType
