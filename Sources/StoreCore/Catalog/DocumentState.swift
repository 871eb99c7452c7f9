/// What the store knows about a document's bytes compared with its files.
///
/// A conflict always carries its type, so "conflict without a type" cannot be represented. In JSON and in the
/// catalog the state is a name (``name``) plus a separate, nullable conflict type (``conflictType``).
public enum DocumentState: Sendable, Hashable {
    /// The document in memory matches its files.
    case clean
    /// The document has edits not yet saved to its files.
    case dirty
    /// A file changed or disappeared while the document could not simply reload; the caller must resolve it.
    case conflict(ConflictType)
    /// The document's files are gone and the document is kept only as a record.
    case deleted
    /// A file of the document is no longer a PDF that opens (overwritten with something else, damaged, or
    /// replaced by a symbolic link, FIFO, device, directory or second hard link, which are never read): its
    /// pages, text, images and content are refused until the file is a readable PDF again.
    case damaged

    /// Why a document is in conflict (the names of `FileConflictType` in the Documents module).
    public enum ConflictType: String, Sendable, Hashable, CaseIterable {
        /// A file of the document was deleted.
        case deletion
        /// A file was modified by someone else while the document had unsaved edits.
        case modification
    }

    /// The state's name: `clean`, `dirty`, `conflict`, `deleted` or `damaged`.
    public var name: String {
        switch self {
        case .clean: return "clean"
        case .dirty: return "dirty"
        case .conflict: return "conflict"
        case .deleted: return "deleted"
        case .damaged: return "damaged"
        }
    }

    /// The conflict's type, or nil when the document is not in conflict.
    public var conflictType: ConflictType? {
        if case .conflict(let type) = self { return type }
        return nil
    }

    /// The state from its name and conflict type, as stored; nil for a name that is not a state or a conflict
    /// type that does not go with it.
    public init?(name: String, conflictType: ConflictType?) {
        switch (name, conflictType) {
        case ("clean", nil): self = .clean
        case ("dirty", nil): self = .dirty
        case ("conflict", let type?): self = .conflict(type)
        case ("deleted", nil): self = .deleted
        case ("damaged", nil): self = .damaged
        default: return nil
        }
    }
}
