/// What a library is doing at one moment, for the supervisor's status line (`systemctl status`): its open
/// documents, those in conflict, and its busy PDF workers.
public struct LibraryActivity: Sendable, Equatable, CustomStringConvertible {
    /// Documents open now.
    public var openDocuments: Int
    /// Open documents in conflict (a document in conflict stays open until it is resolved).
    public var conflicts: Int
    /// PDF worker slots running a request.
    public var busyWorkers: Int
    /// PDF worker slots.
    public var workers: Int

    /// Makes an activity report.
    public init(openDocuments: Int, conflicts: Int, busyWorkers: Int, workers: Int) {
        self.openDocuments = openDocuments
        self.conflicts = conflicts
        self.busyWorkers = busyWorkers
        self.workers = workers
    }

    /// `3 documents open, 1 in conflict, PDF workers 1/2 busy`.
    public var description: String {
        "\(openDocuments) document\(openDocuments == 1 ? "" : "s") open, \(conflicts) in conflict, "
            + "PDF workers \(busyWorkers)/\(workers) busy"
    }
}

extension DocumentLibrary {
    /// What the library is doing now (one lock each, no I/O).
    public func activity() -> LibraryActivity {
        let (open, conflicts) = state.withLock { state in
            (state.open.count, state.open.values.filter { $0.document.conflict != nil }.count)
        }
        let workers = self.workers.occupancy
        return LibraryActivity(
            openDocuments: open, conflicts: conflicts, busyWorkers: workers.busy, workers: workers.total)
    }
}
