/// A document's state, as the service reports it.
public enum DocumentState: String, Sendable, Hashable, Codable, CaseIterable {
    /// The document matches its files.
    case clean
    /// The document has edits not yet saved.
    case dirty
    /// A file changed under unsaved edits, or disappeared; see the document's conflict type.
    case conflict
    /// The document's files are gone.
    case deleted
    /// A file is no longer a readable PDF (or not a regular file with one link beneath its root); pages and
    /// content are refused until it is one again.
    case damaged
}
