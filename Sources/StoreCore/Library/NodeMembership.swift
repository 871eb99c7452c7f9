import Foundation
import Logging
import Synchronization

/// This node in its store's ``NodeRegistry``: its id, address and start, a heartbeat every `interval` while it
/// runs (with how many documents it holds open), and its leaving when it stops. A node whose heartbeat is older
/// than ``liveness`` is dead to the others.
public final class NodeMembership: Sendable {
    /// How old a heartbeat may be for its node to count as alive.
    public static let liveness: Duration = .seconds(5)

    /// The node's id: random, new at each start.
    public let id: String
    /// The registry the node is in.
    let registry: any NodeRegistry
    let version: String
    let startedAt = Date()
    let interval: Duration
    private let address = Mutex<String>("starting")
    /// Since when every heartbeat has reached the registry (nil after a failed one).
    private let healthySince = Mutex<ContinuousClock.Instant?>(nil)
    private let logger: Logger

    /// Makes the membership of a node that runs `version`, heartbeating every `interval`.
    init(registry: any NodeRegistry, version: String, interval: Duration = .seconds(1), logger: Logger) {
        id = String(UUID().uuidString.prefix(8)).lowercased()
        self.registry = registry
        self.version = version
        self.interval = interval
        self.logger = logger
    }

    /// Sets the address the node listens on (once the server listens), and tells the registry now rather than at
    /// the next heartbeat.
    public func listening(at address: String) {
        self.address.withLock { $0 = address }
        let registry = registry
        let record = record(openDocuments: 0)
        Task { try? await registry.heartbeat(record) }
    }

    /// The node's record now, holding `openDocuments` documents.
    func record(openDocuments: Int) -> NodeRecord {
        NodeRecord(
            id: id, address: address.withLock { $0 }, version: version, startedAt: startedAt,
            lastHeartbeat: Date(), openDocuments: openDocuments)
    }

    /// Whether this node may take documents over from nodes that look dead: only once its own heartbeats have
    /// reached the registry for ``liveness`` in a row. After an outage of the database every node's heartbeat is
    /// old; the nodes that come back first must not take the documents of those that come back a moment later.
    public var mayTakeOver: Bool {
        guard let since = healthySince.withLock({ $0 }) else { return false }
        return ContinuousClock.now - since >= Self.liveness
    }

    /// How many documents one statement takes over at most; a sweep repeats it while batches come back full, so
    /// a dead node's 100,000 documents are claimed in ten statements.
    static let takeoverBatch = 10_000

    /// Heartbeats until the task is cancelled, then leaves the registry. After each heartbeat, once the node
    /// listens, it sweeps: the documents whose owners are dead (or that have none) are claimed for this node,
    /// ``takeoverBatch`` a statement until none is left, and handed to `takeIn`.
    func run(
        openDocuments: @escaping @Sendable () -> Int,
        takeIn: @escaping @Sendable ([DocumentTakeover]) async -> Void = { _ in }
    ) async {
        var failing = false
        while !Task.isCancelled {
            do {
                try await registry.heartbeat(record(openDocuments: openDocuments()))
                if failing { logger.notice("node \(id): heartbeats reach the registry again") }
                failing = false
                healthySince.withLock { if $0 == nil { $0 = .now } }
                if address.withLock({ $0 }) != "starting", mayTakeOver {
                    var taken: [DocumentTakeover]
                    repeat {
                        taken = try await registry.takeOver(for: id, liveness: Self.liveness, limit: Self.takeoverBatch)
                        if !taken.isEmpty { await takeIn(taken) }
                    } while taken.count == Self.takeoverBatch && !Task.isCancelled
                }
            } catch {
                healthySince.withLock { $0 = nil }
                if !failing {
                    logger.error("node \(id): cannot record its heartbeat", metadata: ["error": "\(error)"])
                }
                failing = true
            }
            try? await Task.sleep(for: interval)
        }
        try? await registry.leave(id)
    }
}
