import FileCoordination
import Foundation
import Synchronization

/// A presenter that reports every message it receives, coordinated or not, and answers each at once: what
/// `quire watch` registers for each file.
public final class WatchingPresenter: FilePresenter, @unchecked Sendable {
    /// One message a presenter received.
    public struct Event: Sendable {
        /// When it arrived.
        public let time: Date
        /// The `FilePresenter` method's name, such as `presentedItemDidChange`, or `reacquire` when the access a
        /// presenter relinquished to is over.
        public let callback: String
        /// The presented item's path when the message arrived.
        public let path: String
        /// For subitem messages: the item inside the presented directory.
        public let subitem: String?
        /// For moves: where the item (or the subitem) is now.
        public let newPath: String?
    }

    /// Called once for each message, on the presenter's queue (or where the reacquirer runs).
    public typealias Report = @Sendable (Event) -> Void

    private let url: Mutex<URL>
    private let report: Report
    /// Messages arrive on this serial queue, in order.
    public let presentedItemOperationQueue: OperationQueue

    /// Makes a presenter of `url` that reports to `report`; register it with `FileCoordinator.addFilePresenter`.
    public init(url: URL, report: @escaping Report) {
        self.url = Mutex(url)
        self.report = report
        presentedItemOperationQueue = OperationQueue()
        presentedItemOperationQueue.maxConcurrentOperationCount = 1
    }

    /// The presented item; follows moves.
    public var presentedItemURL: URL? { url.withLock { $0 } }
    /// Changes made without coordination are reported too.
    public var observesUncoordinatedChanges: Bool { true }

    private func emit(_ callback: String, subitem: URL? = nil, newPath: URL? = nil) {
        report(Event(
            time: Date(), callback: callback, path: url.withLock { $0.path }, subitem: subitem?.path,
            newPath: newPath?.path))
    }

    /// Reports it, and `reacquire` when the read is over.
    public func relinquishPresentedItem(toReader reader: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        emit("relinquishToReader")
        reader { [self] in emit("reacquire") }
    }

    /// Reports it, and `reacquire` when the write is over.
    public func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        emit("relinquishToWriter")
        writer { [self] in emit("reacquire") }
    }

    /// Reports it; there is nothing to save.
    public func savePresentedItemChanges(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        emit("savePresentedItemChanges")
        completionHandler(nil)
    }

    /// Reports it and lets the deletion go ahead.
    public func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        emit("accommodatePresentedItemDeletion")
        completionHandler(nil)
    }

    /// Reports the move and follows the item.
    public func presentedItemDidMove(to newURL: URL) {
        let old = url.withLock { url in
            defer { url = newURL }
            return url
        }
        report(Event(time: Date(), callback: "presentedItemDidMove", path: old.path, subitem: nil, newPath: newURL.path))
    }

    /// Reports it.
    public func presentedItemDidChange() {
        emit("presentedItemDidChange")
    }

    /// Reports it and lets the deletion go ahead.
    public func accommodatePresentedSubitemDeletion(
        at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void
    ) {
        emit("accommodatePresentedSubitemDeletion", subitem: url)
        completionHandler(nil)
    }

    /// Reports it.
    public func presentedSubitemDidAppear(at url: URL) {
        emit("presentedSubitemDidAppear", subitem: url)
    }

    /// Reports it.
    public func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) {
        emit("presentedSubitemDidMove", subitem: oldURL, newPath: newURL)
    }

    /// Reports it.
    public func presentedSubitemDidChange(at url: URL) {
        emit("presentedSubitemDidChange", subitem: url)
    }
}
