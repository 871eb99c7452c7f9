import Foundation
import StoreClient
import Synchronization

/// Follows a service's event feed in a task and keeps what it sees, for tests to wait on (bounded waits).
final class EventRecorder: Sendable {
    /// What the following task records; shared with it.
    private final class Record: Sendable {
        let events = Mutex<[DocumentEvent]>([])
        let changes = Mutex<[DocumentEventFeed.ConnectionChange]>([])
        let failure = Mutex<String?>(nil)
    }

    private let record = Record()
    private let task: Task<Void, Never>

    /// Starts following `client`'s feed after `lastEventID` (only new events when nil).
    init(client: StoreClient, after lastEventID: Int64? = nil, policy: ReconnectPolicy = ReconnectPolicy()) {
        let record = self.record
        let feed = client.events(after: lastEventID, policy: policy).onConnectionChange { change in
            record.changes.withLock { $0.append(change) }
        }
        task = Task {
            do {
                for try await event in feed { record.events.withLock { $0.append(event) } }
            } catch {
                record.failure.withLock { $0 = String(describing: error) }
            }
        }
    }

    deinit {
        task.cancel()
    }

    /// The events so far.
    var events: [DocumentEvent] { record.events.withLock { $0 } }

    /// How many times the feed has connected.
    var connections: Int {
        record.changes.withLock { $0.filter { if case .connected = $0 { true } else { false } }.count }
    }

    /// Waits until at least `count` events arrived; returns them all.
    /// - Throws: `TimedOut` after `timeout`, or when the feed failed.
    func waitForEvents(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [DocumentEvent] {
        try await eventually("\(count) events (have \(events.map(\.type.rawValue)))", timeout: timeout) {
            if let failure = self.record.failure.withLock({ $0 }) { throw FeedFailed(reason: failure) }
            let events = self.events
            return events.count >= count ? events : nil
        }
    }

    /// Waits until the feed has connected `times` times.
    /// - Throws: `TimedOut` after `timeout`, or when the feed failed.
    func waitForConnections(_ times: Int, timeout: Duration = .seconds(20)) async throws {
        _ = try await eventually("\(times) connections of the event feed", timeout: timeout) {
            if let failure = self.record.failure.withLock({ $0 }) { throw FeedFailed(reason: failure) }
            return self.connections >= times ? true : nil
        }
    }

    /// Stops following.
    func cancel() {
        task.cancel()
    }

    struct FeedFailed: Error, CustomStringConvertible {
        let reason: String
        var description: String { "the event feed failed: \(reason)" }
    }
}

/// Checks `probe` every 10 ms until it returns a value; throws `TimedOut` after `timeout`.
func eventually<T>(
    _ what: String, timeout: Duration = .seconds(20), _ probe: () async throws -> T?
) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = try await probe() { return value }
        guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// A bounded wait ran out.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}
