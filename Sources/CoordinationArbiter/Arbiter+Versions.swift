extension Arbiter {
    /// A version of the item at `path` was added, removed or resolved (`NSFileVersion`), inside a coordinated
    /// access or not, by any client.
    ///
    /// Apple sends the version messages to every presenter concerned, the changer's own included, so no purpose is
    /// left out. Sent at once, in this order:
    /// 1. ``PresenterMessage/versionsChanged(_:)`` to the presenters of the item, in registration order;
    /// 2. ``PresenterMessage/subitemVersionsChanged(_:_:)`` to the presenters of each directory that contains the
    ///    item, nearest first.
    ///
    /// No reply is awaited and nothing else changes: a notice neither waits for nor blocks any access. The
    /// deliveries name ``RequestID/noRequest``.
    public mutating func itemVersionsChanged(at path: ItemPath, _ notice: VersionNotice) -> [ArbiterAction] {
        guard !presenters.isEmpty else { return [] }
        var outcome = EventOutcome()
        if let node = table.node(at: path) {
            let here = table.nodes[node].presenters.compactMap { presenters[$0] }.sorted { $0.sequence < $1.sequence }
            for presenter in here {
                send(.versionsChanged(notice), to: presenter.id, for: .noRequest, about: path, &outcome)
            }
        }
        guard path.depth > 0 else { return outcome.actions }
        for depth in stride(from: path.depth - 1, through: 0, by: -1) {
            guard let node = table.node(at: path.prefix(depth)) else { continue }
            let enclosing = table.nodes[node].presenters.compactMap { presenters[$0] }.sorted {
                $0.sequence < $1.sequence
            }
            for presenter in enclosing {
                send(.subitemVersionsChanged(path, notice), to: presenter.id, for: .noRequest, about: path, &outcome)
            }
        }
        return outcome.actions
    }
}
