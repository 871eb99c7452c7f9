/// Why a document is damaged: the file that is not a readable PDF, and what is wrong with it.
public struct DocumentDamage: Sendable, Equatable {
    /// The file that is not a readable PDF.
    public var file: String
    /// What is wrong with it.
    public var reason: String

    /// The damage of `file`, for `reason`.
    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }
}
