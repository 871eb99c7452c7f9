import FileCoordination
import Foundation
import Synchronization

/// The watch over a file of a document that is not open (beyond `maxOpenDocuments`, or not opened since the
/// service started): a presenter with no document behind it, which costs a registration and an inotify watch
/// but no PDF in memory.
///
/// It does not judge a change itself: a write or a deletion (coordinated, or not: it observes uncoordinated
/// changes) opens the document, and opening records what changed since the catalog last saw it (`changed`,
/// `deleted`), as for any document opened after a change. A rename within the watched directory is recorded as
/// the open documents' moves are (`moved`, the record follows the file).
final class DormantFilePresenter: FilePresenter, Sendable {
    /// The document whose file this is.
    let id: DocumentID
    private let url: Mutex<URL>
    private let queue: OperationQueue
    private let onChange: @Sendable (DocumentID) -> Void
    private let onMove: @Sendable (DocumentID, URL, URL) -> Void

    /// A presenter of `url`, a file of document `id`, whose messages arrive on `queue`.
    init(
        id: DocumentID, url: URL, queue: OperationQueue, onChange: @escaping @Sendable (DocumentID) -> Void,
        onMove: @escaping @Sendable (DocumentID, URL, URL) -> Void
    ) {
        self.id = id
        self.url = Mutex(url)
        self.queue = queue
        self.onChange = onChange
        self.onMove = onMove
    }

    var presentedItemURL: URL? { url.withLock { $0 } }
    var presentedItemOperationQueue: OperationQueue { queue }
    var observesUncoordinatedChanges: Bool { true }

    func presentedItemDidChange() {
        onChange(id)
    }

    func accommodatePresentedItemDeletion(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        completionHandler(nil)
        onChange(id)
    }

    func presentedItemDidMove(to newURL: URL) {
        let oldURL = url.withLock { url in
            defer { url = newURL }
            return url
        }
        onMove(id, oldURL, newURL)
    }
}
