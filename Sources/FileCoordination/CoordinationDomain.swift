import CoordinationArbiter
import Foundation
import Synchronization

/// A set of coordinators and presenters that coordinate with each other: those of one
/// ``CoordinationConfiguration`` (one process, or every process of the user through one directory).
///
/// Most code uses ``default`` without naming it: ``FileCoordinator/init(filePresenter:)`` and the class
/// members ``FileCoordinator/addFilePresenter(_:)`` and ``FileCoordinator/removeFilePresenter(_:)`` do. A
/// program that needs a second, separate domain (a test, a tool serving two coordination directories) makes
/// one with ``init(configuration:)`` and passes it to ``FileCoordinator/init(filePresenter:domain:)``; its
/// presenters hear only its coordinators. A domain connects to (or starts) its arbiter on first use, not when
/// it is made, and keeps its connection for as long as the process runs: make one per configuration and keep
/// it.
public final class CoordinationDomain: Sendable {
    /// The configuration this domain was made with.
    public let configuration: CoordinationConfiguration
    /// The machinery: presenters, waiting requests, the way to the arbiter.
    let client: CoordinationClient

    /// Makes a domain; nothing is connected or started until its first coordinated access or presenter.
    public convenience init(configuration: CoordinationConfiguration) {
        self.init(configuration: configuration, failure: nil)
    }

    /// Makes a domain whose every request fails with `failure` when it is not nil (an invalid environment).
    init(configuration: CoordinationConfiguration, failure: String?) {
        self.configuration = configuration
        self.client = CoordinationClient(configuration: configuration, permanentFailure: failure)
    }

    /// The process-wide domain, made on first use with the configuration given to
    /// ``CoordinationService/configure(_:)``, else ``CoordinationConfiguration/fromEnvironment(_:)`` (an
    /// invalid environment makes every request fail with ``FileCoordinationError/arbiterUnavailable(_:)``).
    public static var `default`: CoordinationDomain {
        DefaultCoordination.domain
    }

    /// Registers a presenter with this domain's coordinators (in every process, with the `user` scope).
    /// Registering the same presenter twice is harmless; one ``removeFilePresenter(_:)`` removes it.
    public func addFilePresenter(_ filePresenter: any FilePresenter) {
        let path = ItemLocator.pathIfFileURL(filePresenter.presentedItemURL)
        guard let entry = client.registry.add(filePresenter, path: path) else { return }
        client.presenterRegistered(
            entry.id, purpose: entry.purpose, path: path, observes: filePresenter.observesUncoordinatedChanges)
    }

    /// Unregisters a presenter from this domain: it receives no further messages from it. Removing an
    /// unregistered one is harmless.
    public func removeFilePresenter(_ filePresenter: any FilePresenter) {
        guard let id = client.registry.remove(filePresenter) else { return }
        client.presenterRemoved(id)
    }

    /// The presenters registered with this domain in this process, in registration order.
    public var filePresenters: [any FilePresenter] {
        client.registry.presenters
    }

    /// The presenters and claims of this domain's arbiter (see ``CoordinationService/status()``).
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` when the directory is unsafe, the host
    ///   refuses, or does not answer within a few seconds.
    public func status() throws(FileCoordinationError) -> CoordinationStatus {
        if let failure = client.permanentFailure { throw .arbiterUnavailable(failure) }
        switch configuration.scope {
        case .process:
            let snapshot = try client.endpoint.snapshot()
            return CoordinationStatus(
                scope: "process", hostPID: SocketSystem.processID, snapshot: snapshot, now: SystemInterface.now())
        case .user:
            return try SharedArbiterStatus.fetch(paths: configuration.paths, client: client)
        }
    }

    /// Returns once the arbiter has processed every event this domain sent before the call (presenter
    /// registrations in particular): after it, a coordinated access of another process sees those presenters.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` when the arbiter cannot answer.
    public func synchronize() throws(FileCoordinationError) {
        if let failure = client.permanentFailure { throw .arbiterUnavailable(failure) }
        _ = try client.endpoint.snapshot()
    }
}

/// The process-wide domain and the configuration it will be made with.
enum DefaultCoordination {
    private struct State {
        var configured: CoordinationConfiguration?
        var domain: CoordinationDomain?
    }

    private static let state = Mutex(State())

    /// The default domain, made on first use.
    static var domain: CoordinationDomain {
        state.withLock { state in
            if let domain = state.domain { return domain }
            let made: CoordinationDomain
            if let configured = state.configured {
                made = CoordinationDomain(configuration: configured, failure: nil)
            } else {
                switch Result(catching: { () throws(FileCoordinationError) in
                    try CoordinationConfiguration.fromEnvironment()
                }) {
                case .success(let configuration):
                    made = CoordinationDomain(configuration: configuration, failure: nil)
                case .failure(let error):
                    made = CoordinationDomain(configuration: CoordinationConfiguration(), failure: error.description)
                }
            }
            state.domain = made
            return made
        }
    }

    /// The configuration the default domain has or will have.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` for an invalid environment.
    static func configuration() throws(FileCoordinationError) -> CoordinationConfiguration {
        let known = state.withLock { state -> (CoordinationConfiguration?, String?) in
            if let domain = state.domain { return (domain.configuration, domain.client.permanentFailure) }
            return (state.configured, nil)
        }
        if let failure = known.1 { throw .arbiterUnavailable(failure) }
        if let configuration = known.0 { return configuration }
        return try CoordinationConfiguration.fromEnvironment()
    }

    /// Sets the default domain's configuration.
    /// - Throws: ``FileCoordinationError/arbiterUnavailable(_:)`` if the default domain is in use already.
    static func configure(_ configuration: CoordinationConfiguration) throws(FileCoordinationError) {
        let inUse = state.withLock { state -> Bool in
            guard state.domain == nil else { return true }
            state.configured = configuration
            return false
        }
        if inUse {
            throw .arbiterUnavailable(
                "file coordination is already in use in this process; configure it before the first coordinator, "
                    + "presenter or status query")
        }
    }
}
