import Foundation

/// An object that presents a file or directory to the user and wants to hear about coordinated access to it.
///
/// Quire's counterpart of Apple's `NSFilePresenter`, with the same members. Register it with
/// ``FileCoordinator/addFilePresenter(_:)``; every message except ``presentedItemURL`` arrives on
/// ``presentedItemOperationQueue``, and messages come from coordinators in this process and (with the shared
/// coordination scope) in other processes. Every method but the first two has a default implementation, as
/// the optional methods of Apple's protocol: the relinquish methods hand back no reacquirer, the completion
/// handlers are called with `nil`, and the notifications do nothing.
public protocol FilePresenter: AnyObject {
    /// The presented item, or nil while it does not exist yet. Read on any thread at any time.
    var presentedItemURL: URL? { get }
    /// The queue on which every other message arrives. A serial queue keeps messages in order.
    var presentedItemOperationQueue: OperationQueue { get }
    /// Quire extension: also report changes made without coordination (detected by inotify). Default false.
    var observesUncoordinatedChanges: Bool { get }

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
    /// An item appeared inside the presented directory.
    func presentedSubitemDidAppear(at url: URL)
    /// An item inside the presented directory moved from `oldURL` to `newURL`.
    func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL)
    /// An item inside the presented directory changed.
    func presentedSubitemDidChange(at url: URL)
}

extension FilePresenter {
    /// Default: changes made without coordination are not reported (Apple's behaviour).
    public var observesUncoordinatedChanges: Bool { false }

    /// Default: relinquish at once and ask for nothing back.
    public func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        reader(nil)
    }

    /// Default: relinquish at once and ask for nothing back.
    public func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        writer(nil)
    }

    /// Default: nothing to save.
    public func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        completionHandler(nil)
    }

    /// Default: nothing to do before the deletion.
    public func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        completionHandler(nil)
    }

    /// Default: ignored.
    public func presentedItemDidMove(to newURL: URL) {}

    /// Default: ignored.
    public func presentedItemDidChange() {}

    /// Default: nothing to do before the deletion.
    public func accommodatePresentedSubitemDeletion(
        at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void
    ) {
        completionHandler(nil)
    }

    /// Default: ignored.
    public func presentedSubitemDidAppear(at url: URL) {}

    /// Default: ignored.
    public func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) {}

    /// Default: ignored.
    public func presentedSubitemDidChange(at url: URL) {}
}
