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

    /// How many documents one sweep takes over at most (the next sweep, an `interval` later, takes more).
    static let takeoverBatch = 200

    /// Heartbeats until the task is cancelled, then leaves the registry. After each heartbeat, once the node
    /// listens, it sweeps: the documents whose owners are dead (or that have none) are claimed for this node, at
    /// most ``takeoverBatch`` a time, and handed to `takeIn`.
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
                if address.withLock({ $0 }) != "starting" {
                    let taken = try await registry.takeOver(
                        for: id, liveness: Self.liveness, limit: Self.takeoverBatch)
                    if !taken.isEmpty { await takeIn(taken) }
                }
            } catch {
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
