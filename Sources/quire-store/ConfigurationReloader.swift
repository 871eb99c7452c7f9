import DocumentStore
import Logging
import NIOPosix
import Supervision

/// What SIGHUP does in `quire serve`: reads the configuration again from the same sources (the `--config` file
/// changes; the flags and the environment do not), applies what can change without a restart, and says in one log
/// line what it applied and what waits for a restart. A configuration that does not load leaves the running one as
/// it is, and one log line says why.
struct ConfigurationReloader: Sendable {
    /// The `--config` file, read again.
    let configFile: String?
    /// The flags, unchanged since start.
    let overrides: ConfigurationOverrides
    let control: ServiceControl
    let levels: LogLevelControl
    let logger: Logger

    /// Reloads (the file is read on a thread of NIO's pool, not the cooperative pool).
    func reload() async {
        let (configFile, overrides) = (self.configFile, self.overrides)
        let loaded: Result<StoreConfiguration, ConfigurationError>
        do {
            loaded = try await NIOThreadPool.singleton.runIfActive {
                Result { () throws(ConfigurationError) in
                    try StoreConfiguration.load(configFile: configFile, overrides: overrides)
                }
            }
        } catch {
            logger.error("configuration not reloaded, the running one stays: \(error)")
            return
        }
        switch loaded {
        case .failure(let error):
            logger.error("configuration not reloaded, the running one stays: \(error.description)")
        case .success(let configuration):
            let outcome = control.reload(configuration)
            levels.set(configuration.logLevel)
            logger.notice("\(Self.summary(outcome))")
        }
    }

    /// `configuration reloaded: applied token, maxUploadBytes; port needs a restart` (or `nothing changed`).
    static func summary(_ outcome: ServiceControl.ReloadOutcome) -> String {
        var parts: [String] = []
        if !outcome.applied.isEmpty { parts.append("applied " + outcome.applied.joined(separator: ", ")) }
        if !outcome.needRestart.isEmpty {
            parts.append(
                outcome.needRestart.joined(separator: ", ") + (outcome.needRestart.count == 1 ? " needs" : " need")
                    + " a restart to change")
        }
        return "configuration reloaded: " + (parts.isEmpty ? "nothing changed" : parts.joined(separator: "; "))
    }
}
