@_exported import FileCoordination
import Foundation

// Apple's names for Quire's file-coordination types, so that code written for Apple platforms compiles on
// Linux unchanged. `NSFileAccessIntent` is Quire's own type under Apple's name; `NSFilePresenter` refines
// ``FilePresenter`` with the version messages in Apple's form (they take an `NSFileVersion`, which only this module
// knows); `NSFileCoordinator` is a class of its own that has Apple's members and nothing else, so that the wrappers real
// code declares in its own extensions (a throwing `coordinate(readingItemAt:options:byAccessor:)`, say) never
// meet Quire's throwing forms of the same name ("ambiguous use of 'coordinate'"). It coordinates through a
// ``FileCoordinator``: both are messaged by the same machinery, and the two coordinate with each other.

/// Apple's `NSFilePresenter`: `FilePresenter` (every member, under Apple's name) with the version messages in
/// Apple's form, taking an ``NSFileVersion``. Each has a default that does nothing, as Apple's optional methods;
/// Quire's `FileVersion` forms are implemented here to call them, so a class implements only Apple's.
public protocol NSFilePresenter: FilePresenter {
    /// A version of the presented item was added (by this process or another).
    func presentedItemDidGain(_ version: NSFileVersion)
    /// A version of the presented item was removed.
    func presentedItemDidLose(_ version: NSFileVersion)
    /// A conflict version of the presented item was resolved.
    func presentedItemDidResolveConflict(_ version: NSFileVersion)
    /// The item at `url`, inside the presented directory, gained a version.
    func presentedSubitem(at url: URL, didGain version: NSFileVersion)
    /// The item at `url`, inside the presented directory, lost a version.
    func presentedSubitem(at url: URL, didLose version: NSFileVersion)
    /// A conflict version of the item at `url`, inside the presented directory, was resolved.
    func presentedSubitem(at url: URL, didResolve version: NSFileVersion)
}

extension NSFilePresenter {
    /// macOS's message for an item created beneath a presented directory (by a write, a `mkdir`, a move into it):
    /// `presentedSubitemDidChange(at:)`, never `presentedSubitemDidAppear(at:)`.
    public var subitemCreationReport: SubitemCreationReport { .changed }

    /// Default: ignored.
    public func presentedItemDidGain(_ version: NSFileVersion) {}
    /// Default: ignored.
    public func presentedItemDidLose(_ version: NSFileVersion) {}
    /// Default: ignored.
    public func presentedItemDidResolveConflict(_ version: NSFileVersion) {}
    /// Default: ignored.
    public func presentedSubitem(at url: URL, didGain version: NSFileVersion) {}
    /// Default: ignored.
    public func presentedSubitem(at url: URL, didLose version: NSFileVersion) {}
    /// Default: ignored.
    public func presentedSubitem(at url: URL, didResolve version: NSFileVersion) {}

    /// Quire's message, handed to Apple's form.
    public func presentedItemDidGain(_ version: FileVersion) { presentedItemDidGain(NSFileVersion(version)) }
    /// Quire's message, handed to Apple's form.
    public func presentedItemDidLose(_ version: FileVersion) { presentedItemDidLose(NSFileVersion(version)) }
    /// Quire's message, handed to Apple's form.
    public func presentedItemDidResolveConflict(_ version: FileVersion) {
        presentedItemDidResolveConflict(NSFileVersion(version))
    }
    /// Quire's message, handed to Apple's form.
    public func presentedSubitem(at url: URL, didGain version: FileVersion) {
        presentedSubitem(at: url, didGain: NSFileVersion(version))
    }
    /// Quire's message, handed to Apple's form.
    public func presentedSubitem(at url: URL, didLose version: FileVersion) {
        presentedSubitem(at: url, didLose: NSFileVersion(version))
    }
    /// Quire's message, handed to Apple's form.
    public func presentedSubitem(at url: URL, didResolve version: FileVersion) {
        presentedSubitem(at: url, didResolve: NSFileVersion(version))
    }
}
/// Apple's `NSFileAccessIntent`: the same class as `FileAccessIntent` (an `NSObject`, as Apple's).
public typealias NSFileAccessIntent = FileAccessIntent

#if !canImport(Darwin)
/// Where a method stores an error, as Apple's `NSErrorPointer` (an autoreleasing pointer there, a plain one on
/// Linux; `&error` with `var error: NSError?` works with both).
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
#endif

/// Apple's `NSFileCoordinator`, with Apple's members only: coordinated reads and writes of files and
/// directories, across threads and processes, with the presenters of those items told first. Each call runs
/// through a `FileCoordinator` (``coordinator``), whose semantics are Apple's. An open class, as Apple's:
/// subclasses override its members. Errors are reported as Apple reports them (a `.forUploading` read of a
/// missing item is `NSFileReadNoSuchFileError`; Quire's own errors bridge with their description).
open class NSFileCoordinator: NSObject, @unchecked Sendable {
    /// Apple's `NSFileCoordinator.ReadingOptions` (the same raw values).
    public typealias ReadingOptions = FileCoordinator.ReadingOptions
    /// Apple's `NSFileCoordinator.WritingOptions` (the same raw values).
    public typealias WritingOptions = FileCoordinator.WritingOptions

    /// The Quire coordinator that does the work (for code that wants Quire's throwing and async forms).
    public let coordinator: FileCoordinator

    /// A coordinator whose accesses do not message `filePresenter` (the presenter making the change).
    public init(filePresenter: (any NSFilePresenter)? = nil) {
        coordinator = FileCoordinator(filePresenter: filePresenter)
        super.init()
    }

    /// Registers a presenter with every coordinator of this process and the others.
    open class func addFilePresenter(_ filePresenter: any NSFilePresenter) {
        FileCoordinator.addFilePresenter(filePresenter)
    }

    /// Unregisters a presenter.
    open class func removeFilePresenter(_ filePresenter: any NSFilePresenter) {
        FileCoordinator.removeFilePresenter(filePresenter)
    }

    /// The `NSFilePresenter`s registered in this process (presenters that conform only to Quire's
    /// `FilePresenter` are in `FileCoordinator/filePresenters`).
    open class var filePresenters: [any NSFilePresenter] {
        FileCoordinator.filePresenters.compactMap { $0 as? any NSFilePresenter }
    }

    /// The identifier that ties this coordinator's accesses together (Apple: set once, before any access).
    open var purposeIdentifier: String {
        get { coordinator.purposeIdentifier }
        set { coordinator.purposeIdentifier = newValue }
    }

    /// Cancels the accesses this coordinator waits for: they fail with NSCocoaErrorDomain 3072.
    open func cancel() { coordinator.cancel() }

    /// Announces a move before it happens (Apple uses it for sandbox extensions only; nothing on Linux).
    open func item(at oldURL: URL, willMoveTo newURL: URL) { coordinator.item(at: oldURL, willMoveTo: newURL) }

    /// Reports, inside a coordinated write, that the item at `oldURL` now is at `newURL`: its presenters are told.
    open func item(at oldURL: URL, didMoveTo newURL: URL) { coordinator.item(at: oldURL, didMoveTo: newURL) }

    /// Apple tells iCloud presenters that an item's ubiquity attributes changed. Linux has no iCloud: this does
    /// nothing.
    open func item(at url: URL, didChangeUbiquityAttributes attributes: Set<URLResourceKey>) {}

    /// Waits asynchronously for access to every intent at once, then runs `accessor` on `queue` with nil (or
    /// with the error, and then it must not touch the files). The access ends when `accessor` returns.
    open func coordinate(
        with intents: [NSFileAccessIntent], queue: OperationQueue,
        byAccessor accessor: @escaping @Sendable ((any Error)?) -> Void
    ) {
        coordinator.coordinate(with: intents, queue: queue) { error in accessor(error.map(AppleErrors.coordination)) }
    }
    /// A coordinated read (Quire's `FileCoordinator/coordinate(readingItemAt:options:byAccessor:)`): on failure the accessor does not run
    /// and `outError` receives the error (cancellation is NSCocoaErrorDomain 3072).
    open func coordinate(
        readingItemAt url: URL, options: ReadingOptions = [], error outError: NSErrorPointer,
        byAccessor reader: (URL) -> Void
    ) {
        report(outError) { try coordinator.coordinate(readingItemAt: url, options: options) { reader($0) } }
    }

    /// A coordinated write (Quire's `FileCoordinator/coordinate(writingItemAt:options:byAccessor:)`): on failure the accessor does not run
    /// and `outError` receives the error. Nesting a write of this coordinator inside the
    /// accessor sets `FileCoordinationError/invalidNesting` (Apple raises an exception); another coordinator's
    /// write of an unrelated item is allowed.
    open func coordinate(
        writingItemAt url: URL, options: WritingOptions = [], error outError: NSErrorPointer,
        byAccessor writer: (URL) -> Void
    ) {
        report(outError) { try coordinator.coordinate(writingItemAt: url, options: options) { writer($0) } }
    }

    /// A coordinated read of one item and write of another, at once; errors as the single forms.
    open func coordinate(
        readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [],
        writingItemAt writingURL: URL, options writingOptions: WritingOptions = [],
        error outError: NSErrorPointer, byAccessor readerWriter: (URL, URL) -> Void
    ) {
        report(outError) {
            try coordinator.coordinate(
                readingItemAt: readingURL, options: readingOptions, writingItemAt: writingURL,
                options: writingOptions) { readerWriter($0, $1) }
        }
    }

    /// Coordinated writes of two items at once (a move, say); errors as the single forms.
    open func coordinate(
        writingItemAt url1: URL, options options1: WritingOptions = [],
        writingItemAt url2: URL, options options2: WritingOptions = [],
        error outError: NSErrorPointer, byAccessor writer: (URL, URL) -> Void
    ) {
        report(outError) {
            try coordinator.coordinate(writingItemAt: url1, options: options1, writingItemAt: url2, options: options2) {
                writer($0, $1)
            }
        }
    }

    /// Prepares a batch of accesses: the presenters of every item are told once, before `batchAccessor` runs
    /// the coordinated accesses themselves (call the completion handler it gets when done); errors as above.
    open func prepare(
        forReadingItemsAt readingURLs: [URL], options readingOptions: ReadingOptions = [],
        writingItemsAt writingURLs: [URL], options writingOptions: WritingOptions = [],
        error outError: NSErrorPointer, byAccessor batchAccessor: (@escaping @Sendable () -> Void) -> Void
    ) {
        report(outError) {
            try coordinator.prepare(
                forReadingItemsAt: readingURLs, options: readingOptions, writingItemsAt: writingURLs,
                options: writingOptions, byAccessor: batchAccessor)
        }
    }

    private func report(_ outError: NSErrorPointer, _ body: () throws -> Void) {
        do {
            try body()
        } catch {
            outError?.pointee = AppleErrors.coordination(error) as NSError
        }
    }
}
