import Crypto
import StoreCore
import Synchronization

/// What the executable can ask of, and change in, a running service: the library's activity (for the supervisor's
/// status line) and the settings a reload changes without a restart (the token and the upload limit; the log level
/// is the executable's).
///
/// Pass one to ``buildApplication(configuration:controllers:metrics:logger:keepAliveInterval:eventBufferBound:version:control:onServerRunning:)``;
/// the token middleware and the upload route read it on every request.
public final class ServiceControl: Sendable {
    /// What a reload did.
    public struct ReloadOutcome: Sendable, Equatable {
        /// The keys whose new values now apply.
        public var applied: [String]
        /// The keys that changed but keep their old values until a restart.
        public var needRestart: [String]
    }

    private struct State {
        var configuration: StoreConfiguration
        var tokenDigest: [UInt8]?
    }

    private let state: Mutex<State>
    private let library = Mutex<DocumentLibrary?>(nil)

    /// Makes the control of a service started with `configuration`.
    public init(configuration: StoreConfiguration) {
        state = Mutex(State(configuration: configuration, tokenDigest: configuration.token.map(Self.digest)))
    }

    /// The configuration in force: the one the service started with, with the reloaded keys' new values.
    public var configuration: StoreConfiguration { state.withLock { $0.configuration } }

    /// The SHA-256 digest of the bearer token in force, nil when none is required.
    var tokenDigest: [UInt8]? { state.withLock { $0.tokenDigest } }

    /// The upload limit in force.
    var maxUploadBytes: Int { state.withLock { $0.configuration.maxUploadBytes } }

    /// What the library does now; nil before the application is built.
    public func activity() -> LibraryActivity? {
        library.withLock { $0 }?.activity()
    }

    /// Takes the reloadable keys' values from `new` (``StoreConfiguration/reloadableKeys``), and says which changed
    /// keys need a restart.
    public func reload(_ new: StoreConfiguration) -> ReloadOutcome {
        let digest = new.token.map(Self.digest)
        let changed = state.withLock { state in
            let changed = state.configuration.changedKeys(to: new)
            state.configuration.token = new.token
            state.tokenDigest = digest
            state.configuration.maxUploadBytes = new.maxUploadBytes
            state.configuration.logLevel = new.logLevel
            return changed
        }
        library.withLock { $0 }?.uploads.setLimit(new.maxUploadBytes)
        return ReloadOutcome(
            applied: changed.filter(StoreConfiguration.reloadableKeys.contains),
            needRestart: changed.filter { !StoreConfiguration.reloadableKeys.contains($0) })
    }

    /// Connects the control to the library the application serves.
    func attach(_ library: DocumentLibrary) {
        self.library.withLock { $0 = library }
    }

    /// The SHA-256 digest of a token.
    static func digest(_ token: some StringProtocol) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }
}
