import Foundation

/// An object that presents a file or directory to the user and wants to hear about coordinated access to it.
///
/// Quire's counterpart of Apple's `NSFilePresenter`, with the same members. Register it with
/// ``FileCoordinator/addFilePresenter(_:)``; every message except ``presentedItemURL`` arrives on
/// ``presentedItemOperationQueue``, and messages come from coordinators in this process and (with the shared
/// coordination scope) in other processes. Every method but the first two has a default implementation, as
/// the optional methods of Apple's protocol: the relinquish methods hand back no reacquirer, the completion-handler
/// methods run their async forms (`savePresentedItemChanges() async throws`, …; implement either form, as on
/// Apple platforms) whose defaults do nothing, and the notifications do nothing.
///
/// ## File packages
/// Apple calls `presentedItemDidChange()` instead of a subitem notification that a package presenter does
/// not implement. Swift cannot tell whether a method is implemented, so Quire's default implementations of
/// ``presentedSubitemDidAppear(at:)``, ``presentedSubitem(at:didMoveTo:)`` and
/// ``presentedSubitemDidChange(at:)`` do it themselves: when ``presentedItemURL`` names a file package (its
/// extension is in ``FileCoordinator/filePackageExtensions``), they call ``presentedItemDidChange()``. A
/// presenter that implements a subitem method gets that method instead, as on Apple platforms. Declare the
/// method in the class that conforms to the protocol: a subclass's method does not replace a default
/// implementation its superclass relies on (Swift's protocol witness rule).
public protocol FilePresenter: AnyObject {
    /// The presented item, or nil while it does not exist yet. Read on any thread at any time.
    var presentedItemURL: URL? { get }
    /// The queue on which every other message arrives. A serial queue keeps messages in order.
    var presentedItemOperationQueue: OperationQueue { get }
    /// Quire extension: also report changes made without coordination (detected by inotify). Default false.
    var observesUncoordinatedChanges: Bool { get }
    /// How this presenter hears of an item created beneath its directory (a write that created it, a `mkdir`, a
    /// move into the directory): ``SubitemCreationReport/appeared`` (Quire's default) or
    /// ``SubitemCreationReport/changed`` (what macOS sends; `NSFilePresenter`'s default).
    var subitemCreationReport: SubitemCreationReport { get }

    /// Another coordinator wants to read: stop writing, then call `reader`, passing a block to run when the
    /// read is over (or nil). The read waits until `reader` is called.
    func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void)
    /// Another coordinator wants to write: stop reading and writing, then call `writer`, passing a block to run
    /// when the write is over (or nil). The write waits until `writer` is called.
    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void)
    /// Save unsaved changes, then call the handler (an error makes the other coordinator's access fail).
    func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// The item is about to be deleted: let go of it, then call the handler (an error stops the deletion).
    func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// The item was moved or renamed to `newURL`: update ``presentedItemURL``.
    func presentedItemDidMove(to newURL: URL)
    /// The item's contents or attributes were changed by another coordinator (or, with
    /// ``observesUncoordinatedChanges``, without coordination).
    func presentedItemDidChange()
    /// An item inside the presented directory is about to be deleted; call the handler when ready.
    func accommodatePresentedSubitemDeletion(at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// An item appeared inside the presented directory: a coordinated write created it, or a coordinated move
    /// brought it in.
    func presentedSubitemDidAppear(at url: URL)
    /// An item inside the presented directory moved from `oldURL` to `newURL`.
    func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL)
    /// The contents or attributes of an item inside the presented directory were written, it was replaced, or
    /// it was deleted (after ``accommodatePresentedSubitemDeletion(at:completionHandler:)`` for `.forDeleting`).
    func presentedSubitemDidChange(at url: URL)
    /// A version of the presented item was added to the versions store (``FileVersion``), by this process or
    /// another. Version messages go to every presenter of the item, also to the one whose process made the change.
    func presentedItemDidGain(_ version: FileVersion)
    /// A version of the presented item was removed from the versions store (its contents are gone).
    func presentedItemDidLose(_ version: FileVersion)
    /// A conflict version of the presented item was marked resolved.
    func presentedItemDidResolveConflict(_ version: FileVersion)
    /// The item at `url`, inside the presented directory (at any depth), gained a version.
    func presentedSubitem(at url: URL, didGain version: FileVersion)
    /// The item at `url`, inside the presented directory, lost a version.
    func presentedSubitem(at url: URL, didLose version: FileVersion)
    /// A conflict version of the item at `url`, inside the presented directory, was marked resolved.
    func presentedSubitem(at url: URL, didResolve version: FileVersion)

    // Apple's members that have no counterpart on Linux. They are requirements (a class that implements them
    // implements the protocol's, and code that declares them compiles), and Quire never calls them:

    /// Apple: the primary item of a "related item" that a sandboxed app presents beside it. Linux has no
    /// sandbox extensions: Quire never reads it.
    var primaryPresentedItemURL: URL? { get }
    /// Apple: the iCloud attributes the presenter wants to hear of. Linux has no iCloud: Quire never reads it.
    var observedPresentedItemUbiquityAttributes: Set<URLResourceKey> { get }
    /// Apple: the item's iCloud attributes changed. Never called on Linux (no iCloud).
    func presentedItemDidChangeUbiquityAttributes(_ attributes: Set<URLResourceKey>)
    /// Apple: the system is about to evict the item's local copy (iCloud). Never called on Linux.
    func accommodatePresentedItemEviction(completionHandler: @escaping @Sendable ((any Error)?) -> Void)

    // Apple's async forms of the methods with a completion handler: a presenter implements either form. The
    // default of each completion-handler form runs the async form (on Swift's global executor, as Apple's
    // bridging does) and hands its error on, so an implemented async form is called and its error fails the access.

    /// The async form of ``savePresentedItemChanges(completionHandler:)``: throw to fail the other access.
    func savePresentedItemChanges() async throws
    /// The async form of ``accommodatePresentedItemDeletion(completionHandler:)``: throw to stop the deletion.
    func accommodatePresentedItemDeletion() async throws
    /// The async form of ``accommodatePresentedSubitemDeletion(at:completionHandler:)``.
    func accommodatePresentedSubitemDeletion(at url: URL) async throws
    /// The async form of ``accommodatePresentedItemEviction(completionHandler:)``. Never called on Linux.
    func accommodatePresentedItemEviction() async throws
}

extension FilePresenter {
    /// Default: changes made without coordination are not reported (Apple's behaviour).
    public var observesUncoordinatedChanges: Bool { false }

    /// Default: ``presentedSubitemDidAppear(at:)`` for a created item.
    public var subitemCreationReport: SubitemCreationReport { .appeared }

    /// Default: relinquish at once and ask for nothing back.
    public func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        reader(nil)
    }

    /// Default: relinquish at once and ask for nothing back.
    public func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        writer(nil)
    }

    /// Default: the async form ``savePresentedItemChanges()`` (whose own default saves nothing).
    public func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        AsyncForm(self).run(completionHandler) { try await $0.savePresentedItemChanges() }
    }

    /// Default: the async form ``accommodatePresentedItemDeletion()`` (whose own default does nothing).
    public func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        AsyncForm(self).run(completionHandler) { try await $0.accommodatePresentedItemDeletion() }
    }

    /// Default: nothing to save.
    public func savePresentedItemChanges() async throws {}

    /// Default: nothing to do before the deletion.
    public func accommodatePresentedItemDeletion() async throws {}

    /// Default: nothing to do before the deletion.
    public func accommodatePresentedSubitemDeletion(at url: URL) async throws {}

    /// Default: nothing to evict (never called on Linux).
    public func accommodatePresentedItemEviction() async throws {}

    /// Default: ignored.
    public func presentedItemDidMove(to newURL: URL) {}

    /// Default: ignored.
    public func presentedItemDidChange() {}

    /// Default: the async form ``accommodatePresentedSubitemDeletion(at:)`` (whose own default does nothing).
    public func accommodatePresentedSubitemDeletion(
        at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void
    ) {
        AsyncForm(self).run(completionHandler) { try await $0.accommodatePresentedSubitemDeletion(at: url) }
    }

    /// Default: ``presentedItemDidChange()`` if the presented item is a file package, else ignored.
    public func presentedSubitemDidAppear(at url: URL) { reportChangeIfPackage() }

    /// Default: ``presentedItemDidChange()`` if the presented item is a file package, else ignored.
    public func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) { reportChangeIfPackage() }

    /// Default: ``presentedItemDidChange()`` if the presented item is a file package, else ignored.
    public func presentedSubitemDidChange(at url: URL) { reportChangeIfPackage() }

    /// Default: ignored.
    public func presentedItemDidGain(_ version: FileVersion) {}

    /// Default: ignored.
    public func presentedItemDidLose(_ version: FileVersion) {}

    /// Default: ignored.
    public func presentedItemDidResolveConflict(_ version: FileVersion) {}

    /// Default: ignored.
    public func presentedSubitem(at url: URL, didGain version: FileVersion) {}

    /// Default: ignored.
    public func presentedSubitem(at url: URL, didLose version: FileVersion) {}

    /// Default: ignored.
    public func presentedSubitem(at url: URL, didResolve version: FileVersion) {}

    /// Default: no primary item.
    public var primaryPresentedItemURL: URL? { nil }

    /// Default: no iCloud attributes.
    public var observedPresentedItemUbiquityAttributes: Set<URLResourceKey> { [] }

    /// Default: nothing (never called on Linux).
    public func presentedItemDidChangeUbiquityAttributes(_ attributes: Set<URLResourceKey>) {}

    /// Default: the async form ``accommodatePresentedItemEviction()`` (never called on Linux).
    public func accommodatePresentedItemEviction(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        AsyncForm(self).run(completionHandler) { try await $0.accommodatePresentedItemEviction() }
    }

    /// Apple's fallback for package presenters without subitem methods: the package as a whole changed.
    private func reportChangeIfPackage() {
        guard let url = presentedItemURL, !url.pathExtension.isEmpty,
            FileCoordinator.filePackageExtensions.contains(url.pathExtension.lowercased())
        else { return }
        presentedItemDidChange()
    }
}

/// Which message a directory's presenter gets for an item created beneath it (``FilePresenter/subitemCreationReport``).
public enum SubitemCreationReport: Sendable, Hashable {
    /// ``FilePresenter/presentedSubitemDidAppear(at:)``: Quire's own API tells a creation from a change.
    case appeared
    /// ``FilePresenter/presentedSubitemDidChange(at:)``, as macOS reports every creation beneath a presented
    /// directory (Apple-platform presenters implement `presentedSubitemDidAppear(at:)`, if at all, as unreachable).
    case changed
}

/// Runs a presenter's async form for the default of its completion-handler form: in a task of its own, as Apple's
/// bridging of `async` presenter methods does, with the error (or nil) handed to the completion handler once.
///
/// Unchecked: the presenter is used from that task as Apple's bridging uses it, outside its operation queue
/// (a presenter that implements an async form is called off its queue on Apple platforms too).
struct AsyncForm: @unchecked Sendable {
    let presenter: any FilePresenter

    init(_ presenter: any FilePresenter) { self.presenter = presenter }

    func run(
        _ completionHandler: @escaping @Sendable ((any Error)?) -> Void,
        _ body: @escaping @Sendable (any FilePresenter) async throws -> Void
    ) {
        Task {
            do {
                try await body(presenter)
                completionHandler(nil)
            } catch {
                completionHandler(error)
            }
        }
    }
}
