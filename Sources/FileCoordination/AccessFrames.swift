import CoordinationArbiter

/// The coordinated accessors running on this thread, innermost last: used to detect forbidden nesting and to
/// mark a coordinator's own nested requests (they must not queue behind requests waiting for the outer one).
final class AccessFrames {
    struct Frame {
        let coordinator: ObjectIdentifier
        let request: RequestID
        let isSingleWrite: Bool
        /// The items the access holds.
        let paths: [ItemPath]
    }

    private static let local = ThreadLocal { AccessFrames() }

    /// This thread's frames.
    static var current: AccessFrames { local.value }

    private(set) var frames: [Frame] = []

    /// Whether a write of `paths` by `coordinator` here is forbidden: inside a single-URL write accessor of the
    /// same coordinator (Apple's rule), or of another coordinator that holds one of the items, or an item that
    /// contains or lies inside one of them (the write would wait for that accessor, which waits for it).
    func forbidsWrite(by coordinator: ObjectIdentifier, of paths: [ItemPath]) -> Bool {
        frames.contains { frame in
            guard frame.isSingleWrite else { return false }
            if frame.coordinator == coordinator { return true }
            return frame.paths.contains { held in
                paths.contains { $0 == held || $0.isAncestor(of: held) || held.isAncestor(of: $0) }
            }
        }
    }

    func innermost(of coordinator: ObjectIdentifier) -> RequestID? {
        frames.last { $0.coordinator == coordinator }?.request
    }

    func push(_ frame: Frame) { frames.append(frame) }

    func pop() { frames.removeLast() }
}
