import FileCoordinationCompat
import Foundation

// Wrappers as real Apple-platform code declares them in its own module (a common shape in open-source iCloud
// and document helpers), compiled here unchanged. Calling them with a trailing closure must not be ambiguous
// with anything Quire declares on `NSFileCoordinator` (a test in FileCoordinationCompatTests does).

extension NSFileCoordinator {
    /// A throwing coordinated read: the coordinator's error or the accessor's.
    public func coordinate(
        readingItemAt url: URL, options: NSFileCoordinator.ReadingOptions = [], byAccessor: (URL) throws -> Void
    ) throws {
        var coordinatorError: NSError?
        var accessorError: Error?
        coordinate(readingItemAt: url, options: options, error: &coordinatorError) { url in
            do { try byAccessor(url) } catch { accessorError = error }
        }
        if let error = coordinatorError ?? accessorError { throw error }
    }

    /// A throwing coordinated write: the coordinator's error or the accessor's.
    public func coordinate(
        writingItemAt url: URL, options: NSFileCoordinator.WritingOptions = [], byAccessor: (URL) throws -> Void
    ) throws {
        var coordinatorError: NSError?
        var accessorError: Error?
        coordinate(writingItemAt: url, options: options, error: &coordinatorError) { url in
            do { try byAccessor(url) } catch { accessorError = error }
        }
        if let error = coordinatorError ?? accessorError { throw error }
    }
}

extension NSFileCoordinator {
    /// A throwing coordinated read that returns what the accessor returns.
    public func coordinate<T>(
        readingItemAt url: URL, options: NSFileCoordinator.ReadingOptions = [], byAccessor: (URL) throws -> T
    ) throws -> T {
        var coordinatorError: NSError?
        var result: Result<T, Error>?
        coordinate(readingItemAt: url, options: options, error: &coordinatorError) { url in
            result = Result { try byAccessor(url) }
        }
        if let coordinatorError { throw coordinatorError }
        guard let result else { throw CocoaError(.fileReadUnknown) }
        return try result.get()
    }
}
