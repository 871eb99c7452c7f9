extension StoreConfiguration {
    /// The keys a running service takes a new value of on reload (SIGHUP): the token, the upload limit, the log
    /// level. Every other key needs a restart: the address is bound, the store locked and opened, the workers
    /// started, the connection handlers made.
    public static let reloadableKeys: Set<String> = [
        ConfigurationKey.token.name, ConfigurationKey.maxUploadBytes.name, ConfigurationKey.logLevel.name,
    ]

    /// The names of the keys (as `config/README.md` spells them) whose values differ in `other`, in the order of
    /// that table.
    public func changedKeys(to other: StoreConfiguration) -> [String] {
        let comparisons: [(ConfigurationKey, Bool)] = [
            (.store, storeDirectory != other.storeDirectory),
            (.host, host != other.host),
            (.port, port != other.port),
            (.coordinationScope, coordinationScope != other.coordinationScope),
            (.maxUploadBytes, maxUploadBytes != other.maxUploadBytes),
            (.maxOpenDocuments, maxOpenDocuments != other.maxOpenDocuments),
            (.maxDPI, maxDPI != other.maxDPI),
            (.uploadBudgetBytes, uploadBudgetBytes != other.uploadBudgetBytes),
            (.headerTimeoutSeconds, headerTimeout != other.headerTimeout),
            (.idleTimeoutSeconds, idleTimeout != other.idleTimeout),
            (.minBodyBytesPerSecond, minBodyBytesPerSecond != other.minBodyBytesPerSecond),
            (.bodyTimeoutSeconds, bodyTimeout != other.bodyTimeout),
            (.maxConnections, maxConnections != other.maxConnections),
            (.pdfWorkers, pdfWorkers != other.pdfWorkers),
            (.pdfDeadlineSeconds, pdfDeadline != other.pdfDeadline),
            (.pdfMemoryMiB, pdfMemoryMiB != other.pdfMemoryMiB),
            (.token, token != other.token),
            (.database, database != other.database),
            (.contentCheckSeconds, contentCheckInterval != other.contentCheckInterval),
            (.roots, roots != other.roots),
            (.logLevel, logLevel != other.logLevel),
            (.logFormat, logFormat != other.logFormat),
            (.coordinationPollMicroseconds, polling.coordination.waitingClient != other.polling.coordination.waitingClient),
            (.coordinationHandOverPollMicroseconds, polling.coordination.handOver != other.polling.coordination.handOver),
            (.coordinationHostPollMicroseconds, polling.coordination.host != other.polling.coordination.host),
            (.workersPollMicroseconds, polling.workerReply != other.polling.workerReply),
            (.workersIdlePollMicroseconds, polling.workerIdle != other.polling.workerIdle),
        ]
        return comparisons.filter(\.1).map(\.0.name)
    }
}
