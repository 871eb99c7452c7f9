@_exported import FileCoordination
import Foundation

// Apple's names for Quire's file-coordination types, so that code written for Apple platforms compiles on
// Linux unchanged. They are the same types: an `NSFilePresenter` is a `FilePresenter`, and both are messaged by
// the same machinery.

/// Apple's `NSFileCoordinator`: the same class as ``FileCoordinator``.
public typealias NSFileCoordinator = FileCoordinator
/// Apple's `NSFilePresenter`: the same protocol as ``FilePresenter``.
public typealias NSFilePresenter = FilePresenter
/// Apple's `NSFileAccessIntent`: the same class as ``FileAccessIntent``.
public typealias NSFileAccessIntent = FileAccessIntent

#if !canImport(Darwin)
/// Where a method stores an error, as Apple's `NSErrorPointer` (an autoreleasing pointer there, a plain one on
/// Linux; `&error` with `var error: NSError?` works with both).
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
#endif

extension FileCoordinator {
    /// Apple's form of ``coordinate(readingItemAt:options:byAccessor:)``: on failure the accessor does not run
    /// and `outError` receives the error (cancellation is NSCocoaErrorDomain 3072).
    public func coordinate(
        readingItemAt url: URL, options: ReadingOptions = [], error outError: NSErrorPointer,
        byAccessor reader: (URL) -> Void
    ) {
        report(outError) { try coordinate(readingItemAt: url, options: options) { reader($0) } }
    }

    /// Apple's form of ``coordinate(writingItemAt:options:byAccessor:)``: on failure the accessor does not run
    /// and `outError` receives the error. Nesting a write inside the accessor sets ``FileCoordinationError/invalidNesting``
    /// (Apple raises an exception).
    public func coordinate(
        writingItemAt url: URL, options: WritingOptions = [], error outError: NSErrorPointer,
        byAccessor writer: (URL) -> Void
    ) {
        report(outError) { try coordinate(writingItemAt: url, options: options) { writer($0) } }
    }

    /// Apple's form of ``coordinate(readingItemAt:options:writingItemAt:options:byAccessor:)``.
    public func coordinate(
        readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [],
        writingItemAt writingURL: URL, options writingOptions: WritingOptions = [],
        error outError: NSErrorPointer, byAccessor readerWriter: (URL, URL) -> Void
    ) {
        report(outError) {
            try coordinate(
                readingItemAt: readingURL, options: readingOptions, writingItemAt: writingURL,
                options: writingOptions) { readerWriter($0, $1) }
        }
    }

    /// Apple's form of ``coordinate(writingItemAt:options:writingItemAt:options:byAccessor:)``.
    public func coordinate(
        writingItemAt url1: URL, options options1: WritingOptions = [],
        writingItemAt url2: URL, options options2: WritingOptions = [],
        error outError: NSErrorPointer, byAccessor writer: (URL, URL) -> Void
    ) {
        report(outError) {
            try coordinate(writingItemAt: url1, options: options1, writingItemAt: url2, options: options2) {
                writer($0, $1)
            }
        }
    }

    /// Apple's form of ``prepare(forReadingItemsAt:options:writingItemsAt:options:byAccessor:)``.
    public func prepare(
        forReadingItemsAt readingURLs: [URL], options readingOptions: ReadingOptions = [],
        writingItemsAt writingURLs: [URL], options writingOptions: WritingOptions = [],
        error outError: NSErrorPointer, byAccessor batchAccessor: (@escaping @Sendable () -> Void) -> Void
    ) {
        report(outError) {
            try prepare(
                forReadingItemsAt: readingURLs, options: readingOptions, writingItemsAt: writingURLs,
                options: writingOptions, byAccessor: batchAccessor)
        }
    }

    private func report(_ outError: NSErrorPointer, _ body: () throws -> Void) {
        do {
            try body()
        } catch {
            outError?.pointee = error as NSError
        }
    }
}
