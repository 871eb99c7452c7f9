import CoordinationArbiter

/// The coordinated accessors running on this thread, innermost last: used to detect forbidden nesting and to
/// mark a coordinator's own nested requests (they must not queue behind requests waiting for the outer one).
final class AccessFrames {
    struct Frame {
        let coordinator: ObjectIdentifier
        let request: RequestID
        let isSingleWrite: Bool
    }

    private static let local = ThreadLocal { AccessFrames() }

    /// This thread's frames.
    static var current: AccessFrames { local.value }

    private(set) var frames: [Frame] = []

    var isInsideSingleWrite: Bool { frames.contains { $0.isSingleWrite } }

    func innermost(of coordinator: ObjectIdentifier) -> RequestID? {
        frames.last { $0.coordinator == coordinator }?.request
    }

    func push(_ frame: Frame) { frames.append(frame) }

    func pop() { frames.removeLast() }
}
