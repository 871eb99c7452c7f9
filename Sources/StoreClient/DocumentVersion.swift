import Foundation

/// A version kept of one of a document's files (`GET /documents/{id}/versions`): the side a conflict resolution
/// dropped.
public struct DocumentVersion: Sendable, Hashable, Codable {
    /// The version's identifier (what a restore names).
    public var id: String
    /// The path of the document file it is a version of.
    public var file: String
    /// When its bytes were kept.
    public var modificationDate: Date
    /// Whether it is a conflict version.
    public var isConflict: Bool
    /// Whether the conflict is marked resolved (true for a version that is not a conflict version).
    public var isResolved: Bool
    /// The bytes of its contents.
    public var size: Int
    /// The name shown for it: the file's name.
    public var localizedName: String
}
