import Synchronization

/// Runs async operations on one document one at a time, in the order they arrive: an edit, a save, the
/// handling of an external change and a resolution never interleave (an actor would, at each `await`).
final class OperationLane: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` once every operation that arrived before it has finished.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let runNow = state.withLock { state -> Bool in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if runNow { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// The lane of one document of a ``DocumentLibrary``: each ``run(_:)`` joins the document's ``OperationLane``
/// (made on first use) and leaves it afterwards, so that the library keeps lanes only for documents with an
/// operation running or waiting.
struct DocumentLane: Sendable {
    let library: DocumentLibrary
    let id: DocumentID

    /// Runs `body` once every operation on the document that arrived before it has finished (on this node, then,
    /// in a cluster, on every node: the document's lock is taken inside its lane).
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let lane = library.enterLane(id)
        defer { library.leaveLane(id) }
        let locks = library.locks
        return try await lane.run { try await locks.withLock("document \(id.rawValue)", body) }
    }
}
