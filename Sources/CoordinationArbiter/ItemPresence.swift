/// Whether the item of a write intent existed when its access was granted and when the access ended, as the
/// writer's process saw it.
///
/// The arbiter does no I/O, so the writer looks: a grant asks for it (``ArbiterAction/grant(_:_:paths:reportsPresence:)``)
/// when a presenter of an enclosing directory will be told of the write, and the writer reports it with
/// ``Arbiter/accessEnded(_:from:presence:)``. It decides which message those directory presenters get.
public struct ItemPresence: Hashable, Sendable, CustomStringConvertible {
    /// The item existed when the access was granted.
    public var existedBefore: Bool
    /// The item existed when the accessor returned.
    public var existsAfter: Bool

    /// Records what the writer saw.
    public init(existedBefore: Bool, existsAfter: Bool) {
        self.existedBefore = existedBefore
        self.existsAfter = existsAfter
    }

    /// `absent`, `appeared`, `changed` or `removed`.
    public var description: String {
        switch (existedBefore, existsAfter) {
        case (false, false): return "absent"
        case (false, true): return "appeared"
        case (true, true): return "changed"
        case (true, false): return "removed"
        }
    }
}
