/// A change to the versions of an item (`NSFileVersion`'s store), on its way to the item's presenters and to the
/// presenters of the directories that contain it.
///
/// The arbiter only routes it: ``version`` is the host's encoding of the version (identifier, flags, dates, the
/// store it lives in), carried unchanged to every client that has a presenter to tell.
public struct VersionNotice: Hashable, Sendable, CustomStringConvertible {
    /// What happened to the version.
    public enum Change: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// A version was added (`presentedItemDidGain`, `presentedSubitem(at:didGain:)`).
        case gained = 0
        /// A version was removed (`presentedItemDidLose`, `presentedSubitem(at:didLose:)`).
        case lost = 1
        /// A conflict version was resolved (`presentedItemDidResolveConflict`, `presentedSubitem(at:didResolve:)`).
        case resolved = 2

        /// `gained`, `lost` or `resolved`.
        public var description: String {
            switch self {
            case .gained: return "gained"
            case .lost: return "lost"
            case .resolved: return "resolved"
            }
        }
    }

    /// What happened.
    public let change: Change
    /// The host's encoding of the version, opaque to the arbiter.
    public let version: [UInt8]

    /// Wraps a change and the host's encoding of the version.
    public init(_ change: Change, version: [UInt8]) {
        self.change = change
        self.version = version
    }

    /// The change and the encoding's byte count.
    public var description: String { "\(change) \(version.count) bytes" }
}
