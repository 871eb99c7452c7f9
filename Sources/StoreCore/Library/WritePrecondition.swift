/// The version a write means to replace: the entity tags the document must have (`ifMatch`) or must not have
/// (`ifNoneMatch`) for the write to go ahead, checked against the document's current tag inside its lane.
///
/// The service makes one of these from a request's preconditions at its edge; the store itself sees only versions.
public struct WritePrecondition: Sendable, Hashable {
    /// The tags of which the current version must be one (strong comparison), or nil for none named.
    public var ifMatch: EntityTagCondition?
    /// The tags of which the current version must be none (weak comparison), or nil for none named.
    public var ifNoneMatch: EntityTagCondition?

    /// Makes a precondition; with neither condition the write names no version.
    public init(ifMatch: EntityTagCondition? = nil, ifNoneMatch: EntityTagCondition? = nil) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
    }

    /// No version named: a write that must name one is refused (``StoreError/preconditionRequired``), an edit
    /// goes ahead.
    public static let none = WritePrecondition()

    /// A write of the version tagged `tag` only.
    public static func matching(_ tag: EntityTag) -> WritePrecondition {
        WritePrecondition(ifMatch: .tags([tag]))
    }

    /// Whether both conditions hold for the current version (`current`, nil when there is none).
    public func holds(current: EntityTag?) -> Bool {
        if let ifMatch, !ifMatch.ifMatchHolds(current: current) { return false }
        if let ifNoneMatch, !ifNoneMatch.ifNoneMatchHolds(current: current) { return false }
        return true
    }

    /// For writes that must name the version they replace (content, deletion, save, restore): throws unless
    /// `ifMatch` is given and both conditions hold for `current`.
    /// - Throws: ``StoreError/preconditionRequired`` without `ifMatch`; ``StoreError/preconditionFailed(current:)``
    ///   when a condition does not hold.
    public func require(current: EntityTag?) throws(StoreError) {
        guard ifMatch != nil else { throw .preconditionRequired }
        guard holds(current: current) else { throw .preconditionFailed(current: current) }
    }

    /// Whether a document known to be at `version` at least (from memory, however late: versions only grow) surely
    /// refuses this write: its `ifMatch` names only validators of older versions. Never true for any version (`*`),
    /// for a tag that is not a document validator, or without `ifMatch`; what it does not refuse, the document's
    /// lane checks.
    public func isSurelyStale(knownVersion version: Int64) -> Bool {
        guard case .tags(let tags)? = ifMatch, !tags.isEmpty else { return false }
        return tags.allSatisfy { tag in tag.documentVersion.map { $0 < version } ?? false }
    }

    /// For edits that may name a version (metadata, annotations): checks as ``require(current:)`` when `ifMatch`
    /// is given, and lets the edit go ahead when it is not.
    /// - Throws: as ``require(current:)``.
    public func check(current: EntityTag?) throws(StoreError) {
        if ifMatch != nil { try require(current: current) }
    }
}
