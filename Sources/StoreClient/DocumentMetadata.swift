import QuireAPI

/// A PDF's document information (title, author, subject, keywords, creator, producer, creation and modification
/// dates), as the service reports it and as a merge patch changes it: openapi.yaml's `Metadata`, generated in
/// QuireAPI.
///
/// Members left nil are absent from the JSON the client sends, so as the body of `PATCH /documents/{id}/metadata`
/// (a JSON merge patch, RFC 7396) it sets the members given and leaves the others unchanged.
public typealias DocumentMetadata = Components.Schemas.Metadata
