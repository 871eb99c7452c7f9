import ServiceLifecycle

/// Runs a ``DocumentLibrary`` inside the service group: watches the documents' directories at start and catches
/// up with their files in the background, and on graceful shutdown (SIGTERM, SIGINT) closes every document and unregisters its presenters, then frees the
/// store's lock.
public struct LibraryService: Service {
    private let library: DocumentLibrary
    private let storeLock: StoreLock?

    /// Makes the service; `storeLock`, the lock of the library's store, is freed once the library is shut down.
    public init(library: DocumentLibrary, storeLock: StoreLock? = nil) {
        self.library = library
        self.storeLock = storeLock
    }

    /// Watches the documents' directories, catches up with their files in the background, runs the event fan-out (a cluster node's follower of the shared log), the node's
    /// heartbeats and sweeps, the search index (``DocumentLibrary/runIndexing()``), and the periodic content check (when configured) until shutdown, closes everything, frees the store's lock. Throws nothing.
    public func run() async throws {
        if let storeLock, !storeLock.locksDirectory {
            library.logger.warning(
                "the store directory cannot be locked on this file system: only quire.lock keeps a second service out, and removing it lets one in",
                metadata: ["store": "\(library.configuration.storeDirectory.path)"])
        }
        await library.start()
        let fanOut = library.fanOut
        let membership = library.membership
        let library = library
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await fanOut.run() }
                group.addTask {
                    await membership.run(
                        openDocuments: { library.openDocumentCount }, takeIn: { taken in
                            // Off the heartbeat's task: opening many documents must not delay the heartbeats.
                            Task { await library.takeIn(taken) }
                        })
                }
                group.addTask { await library.catchUp() }
                group.addTask { await library.runIndexing() }
                group.addTask { await library.runContentChecks() }
                group.addTask { try? await gracefulShutdown() }
            }
        }
        await library.shutdown()
        storeLock?.release()
    }
}
