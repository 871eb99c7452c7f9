/// A condition on a document's current tag: any current version, or one of a list of tags. A
/// ``WritePrecondition`` holds two of them: the versions a write may replace, and those it must not.
public enum EntityTagCondition: Sendable, Hashable {
    /// Any current version (`*`).
    case anyRepresentation
    /// A list of entity tags (never empty).
    case tags([EntityTag])

    /// Whether the current tag (nil: there is no current version) is one the condition names, by the strong
    /// comparison (a weak tag never matches): the condition of the versions a write may replace.
    public func ifMatchHolds(current: EntityTag?) -> Bool {
        guard let current else { return false }
        switch self {
        case .anyRepresentation:
            return true
        case .tags(let tags):
            return tags.contains { $0.matchesStrongly(current) }
        }
    }

    /// Whether the current tag (nil: there is no current version) is none the condition names, by the weak
    /// comparison (RFC 9110 §13.1.2): the condition of the versions a write must not replace.
    public func ifNoneMatchHolds(current: EntityTag?) -> Bool {
        guard let current else { return true }
        switch self {
        case .anyRepresentation:
            return false
        case .tags(let tags):
            return !tags.contains { $0.matchesWeakly(current) }
        }
    }
}
