/// A document's conflict (`GET /documents/{id}/conflict`).
public struct ConflictReport: Sendable, Hashable, Codable {
    /// The conflict itself: its type and the file that changed or disappeared.
    public struct Conflict: Sendable, Hashable, Codable {
        /// Modification or deletion.
        public var type: ConflictType
        /// The path of the file that changed or disappeared.
        public var file: String
    }

    /// The document's id.
    public var document: String
    /// The document's state.
    public var state: DocumentState
    /// The conflict, or nil when the document is not in conflict.
    public var conflict: Conflict?
}
