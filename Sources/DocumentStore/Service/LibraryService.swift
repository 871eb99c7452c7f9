import ServiceLifecycle

/// Runs a ``DocumentLibrary`` inside the service group: opens the recently used documents at start, and on
/// graceful shutdown (SIGTERM, SIGINT) closes every document and unregisters its presenters.
public struct LibraryService: Service {
    private let library: DocumentLibrary

    /// Makes the service.
    public init(library: DocumentLibrary) {
        self.library = library
    }

    /// Opens recent documents, waits for shutdown, closes everything.
    public func run() async throws {
        await library.openRecentDocuments()
        try? await gracefulShutdown()
        await library.shutdown()
    }
}
