import QuireAPI

/// A document's conflict (`GET /documents/{id}/conflict`): its id, state, and the conflict (its type, the file that
/// changed or disappeared, and that file's size and entity tag when it still exists), or none. openapi.yaml's
/// `ConflictReport`, generated in QuireAPI.
public typealias ConflictReport = Components.Schemas.ConflictReport

extension Components.Schemas.ConflictReport {
    /// The conflict itself, as ``StoreClient`` names it.
    public typealias Conflict = ConflictPayload
}

extension Components.Schemas.ConflictReport.ConflictPayload {
    /// Modification or deletion (the generator names the member `_type`, `type` being one of its reserved words).
    public var type: ConflictType { _type }
}
