/// How a conflict is resolved (`POST /documents/{id}/conflict/resolve`).
public enum ConflictResolution: String, Sendable, Hashable, Codable, CaseIterable {
    /// Drop the edits and read the files again.
    case reload
    /// Write the edits over the files (restoring a deleted file).
    case save
    /// Drop the document from the store.
    case close
}
