/// Why a document is in conflict.
public enum ConflictType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A file of the document was deleted.
    case deletion
    /// A file was changed by someone else while the document had unsaved edits.
    case modification
}
