/// The value of an `If-Match` or `If-None-Match` header (RFC 9110 §13.1.1, §13.1.2): `*` or a list of tags.
public enum EntityTagCondition: Sendable, Hashable {
    /// `*`: any current representation.
    case anyRepresentation
    /// A list of entity tags (never empty).
    case tags([EntityTag])

    /// Parses a header's field values (one per header line; a recipient combines them as one list); nil when
    /// they are not `*` alone or a list of entity tags.
    public init?(headerValues: [String]) {
        let combined = headerValues.joined(separator: ", ")
        if combined.trimmingWhitespace() == "*" {
            self = .anyRepresentation
            return
        }
        var scanner = EntityTagScanner(Substring(combined))
        guard let tags = scanner.scanEntityTagList() else { return nil }
        self = .tags(tags)
    }

    /// Whether an `If-Match` with this value holds for the current representation (nil: there is none).
    /// Uses the strong comparison: a weak tag never matches.
    public func ifMatchHolds(current: EntityTag?) -> Bool {
        guard let current else { return false }
        switch self {
        case .anyRepresentation:
            return true
        case .tags(let tags):
            return tags.contains { $0.matchesStrongly(current) }
        }
    }

    /// Whether an `If-None-Match` with this value holds for the current representation (nil: there is none).
    /// Uses the weak comparison, as RFC 9110 §13.1.2 requires.
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
