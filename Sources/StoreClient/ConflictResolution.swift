import QuireAPI

/// How a conflict is resolved (`POST /documents/{id}/conflict/resolve`): `reload` drops the edits and reads the
/// files again, `save` writes the edits over the files, `close` drops the document from the store. openapi.yaml's
/// `ConflictResolution`, generated in QuireAPI.
public typealias ConflictResolution = Components.Schemas.ConflictResolution
