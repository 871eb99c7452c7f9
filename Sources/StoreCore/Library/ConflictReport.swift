/// A document's conflict as ``DocumentLibrary/conflictReport(_:password:)`` finds it: the document's state, and
/// the file in conflict with the facts of that file as it is on disk now.
public struct ConflictReport: Sendable, Equatable {
    /// The file in conflict, and what it is now.
    public struct Conflict: Sendable, Equatable {
        /// Deletion or modification.
        public var type: DocumentState.ConflictType
        /// The file in conflict (empty when the record names none).
        public var file: String
        /// The size of the file as it is on disk now, when it exists and can be read (the other side of a
        /// modification conflict: the document holds the version its edits were made on).
        public var fileSize: Int?
        /// The tag of the file's content as it is on disk now, when it exists and can be read.
        public var fileTag: EntityTag?

        /// Makes a conflict; the facts of the file on disk are added when it can be read.
        public init(type: DocumentState.ConflictType, file: String, fileSize: Int? = nil, fileTag: EntityTag? = nil) {
            self.type = type
            self.file = file
            self.fileSize = fileSize
            self.fileTag = fileTag
        }
    }

    /// The document's id.
    public var document: DocumentID
    /// The document's state.
    public var state: DocumentState
    /// The conflict, or nil when the document is in none.
    public var conflict: Conflict?

    /// Makes the report of `document`.
    public init(document: DocumentID, state: DocumentState, conflict: Conflict?) {
        self.document = document
        self.state = state
        self.conflict = conflict
    }
}
