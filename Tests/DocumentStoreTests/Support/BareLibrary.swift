import Foundation
import Logging

@testable import StoreCore

/// A document library over a fresh SQLite catalog in a temporary directory, without routes: for tests that drive
/// the library, its catalog and its live feed themselves. Only critical lines are logged.
struct BareLibrary {
    let directory: TemporaryDirectory
    let configuration: StoreConfiguration
    let catalog: Catalog
    let metrics = StoreMetrics()
    let library: DocumentLibrary

    /// Makes the library; its event streams get a keep-alive tick every `keepAliveInterval` and are ended when
    /// more than `eventBufferBound` items wait; its configuration has the idle timeout `idleTimeout`.
    init(
        keepAliveInterval: Duration = .seconds(600), eventBufferBound: Int = 10_000,
        idleTimeout: Duration = .seconds(60)
    ) throws {
        directory = try TemporaryDirectory()
        configuration = StoreConfiguration(
            storeDirectory: directory.url.appendingPathComponent("store"), port: 0, idleTimeout: idleTimeout)
        catalog = try Catalog(storeDirectory: configuration.storeDirectory)
        var logger = Logger(label: "quire.test")
        logger.logLevel = .critical
        library = try DocumentLibrary(
            catalog: catalog, configuration: configuration, metrics: metrics, logger: logger,
            keepAliveInterval: keepAliveInterval, eventBufferBound: eventBufferBound)
    }

    /// Shuts the library down and removes the directory.
    func remove() async {
        await library.shutdown()
        directory.remove()
    }
}
