import DocumentStore
import QuireCommandLine

extension ServeArguments {
    /// The flags as the highest-precedence layer of the service's configuration.
    var overrides: ConfigurationOverrides {
        ConfigurationOverrides(
            store: store, host: host, port: port, coordinationScope: coordinationScope,
            maxUploadBytes: maxUploadBytes, maxOpenDocuments: maxOpenDocuments, maxDPI: maxDPI,
            uploadBudgetBytes: uploadBudgetBytes, headerTimeoutSeconds: headerTimeoutSeconds,
            idleTimeoutSeconds: idleTimeoutSeconds, minBodyBytesPerSecond: minBodyBytesPerSecond,
            bodyTimeoutSeconds: bodyTimeoutSeconds, maxConnections: maxConnections, pdfWorkers: pdfWorkers,
            pdfDeadlineSeconds: pdfDeadlineSeconds, pdfMemoryMiB: pdfMemoryMiB, token: token,
            database: database, contentCheckSeconds: contentCheckSeconds, roots: roots, logLevel: logLevel,
            logFormat: logFormat, coordinationPollMicroseconds: coordinationPollMicroseconds,
            coordinationHandOverPollMicroseconds: coordinationHandOverPollMicroseconds,
            coordinationHostPollMicroseconds: coordinationHostPollMicroseconds,
            workersPollMicroseconds: workersPollMicroseconds, workersIdlePollMicroseconds: workersIdlePollMicroseconds)
    }
}
