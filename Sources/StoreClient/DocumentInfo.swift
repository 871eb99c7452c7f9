import QuireAPI

/// A document's info (`GET /documents/{id}`, and the answer to an upload, a registration, an edit, a save, a
/// `PUT`, a restore or a resolution): its id, validator (`etag`), version, content tag, origin, pages, metadata,
/// files, state, conflict, damage, encryption, size and dates. openapi.yaml's `DocumentInfo`, generated in
/// QuireAPI.
///
/// `etag` is the document's validator with its quotes: what its info is tagged with and what a write names as
/// `ifMatch`; it changes with every change of the document, unsaved edits included. `contentEtag` is the strong
/// tag of what ``StoreClient/content(of:)`` returns. `conflict` says why the document is in conflict (nil when it
/// is not); `damage` which file is not a readable PDF and why (nil when none is).
public typealias DocumentInfo = Components.Schemas.DocumentInfo

extension Components.Schemas.DocumentInfo {
    /// One page: its number (from 1), width and height in points (1/72 inch), and label (`iv`, `A-3`) when the PDF
    /// defines one.
    public typealias Page = Components.Schemas.Page
    /// One file of the document: its absolute path (it follows moves), size in bytes and strong entity tag.
    public typealias File = Components.Schemas.DocumentFile
    /// Where the document's files live: `upload` (in the store) or `registered` (under a configured root).
    public typealias Origin = OriginPayload

    /// Why the document is in conflict, as a ``ConflictType``; nil when it is not.
    public var conflictType: ConflictType? {
        switch conflict {
        case .deletion: .deletion
        case .modification: .modification
        case ._empty_, nil: nil
        }
    }
}
