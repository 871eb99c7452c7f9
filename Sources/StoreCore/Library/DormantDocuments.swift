import FileCoordination
import Foundation
import Synchronization

/// The watch over the files of the documents that are not open: one presenter per directory that holds documents'
/// files (the store's `files/` and each directory of registered files), never one per document. A dormant document
/// costs nothing here: a change in a watched directory names a path, and the catalog's file index says which
/// document (if any) holds it (``DocumentCatalog/documents(holdingAnyOf:)``).
///
/// The presenters observe uncoordinated changes, so they hear of every entry of their directory: written, created,
/// replaced, deleted, renamed (by another program, or coordinated by another process). They do not judge a change:
/// `onChange` and `onMove` get the paths, `onOverflow` hears when changes may have been lost (the directory's watch
/// was lost or the kernel's queue overflowed), and the library decides. A directory stays watched until shutdown,
/// even when its last document leaves (its presenter then hears of files no document holds, which cost a lookup).
final class DormantDocuments: Sendable {
    private let queue: OperationQueue
    private let presenters = Mutex<(watched: [String: DirectoryPresenter], stopped: Bool)>(([:], false))
    private let handlers: DirectoryPresenter.Handlers

    /// A watch that reports to the handlers, serially, on its own queue.
    init(
        onChange: @escaping @Sendable (String) -> Void, onMove: @escaping @Sendable (String, String) -> Void,
        onOverflow: @escaping @Sendable (String) -> Void
    ) {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "quire.dormant-documents"
        self.queue = queue
        handlers = DirectoryPresenter.Handlers(onChange: onChange, onMove: onMove, onOverflow: onOverflow)
    }

    /// Watches each of `directories` not watched yet (absolute, normalized paths). Does nothing once stopped.
    func watch(directories: some Sequence<String>) {
        let added = presenters.withLock { state -> [DirectoryPresenter] in
            guard !state.stopped else { return [] }
            var added: [DirectoryPresenter] = []
            for directory in directories where state.watched[directory] == nil {
                let presenter = DirectoryPresenter(
                    url: URL(fileURLWithPath: directory, isDirectory: true), queue: queue, handlers: handlers)
                state.watched[directory] = presenter
                added.append(presenter)
            }
            return added
        }
        // Registration talks to the arbiter and adds a kernel watch: outside the lock.
        for presenter in added { FileCoordinator.addFilePresenter(presenter) }
    }

    /// Watches the directories of `paths` (files of a document).
    func watch(directoriesOf paths: [String]) {
        watch(directories: paths.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path })
    }

    /// The directories watched now, sorted.
    var directories: [String] { presenters.withLock { $0.watched.keys.sorted() } }

    /// Stops every presenter; later ``watch(directories:)`` calls do nothing.
    func stop() {
        let removed = presenters.withLock { state -> [DirectoryPresenter] in
            state.stopped = true
            defer { state.watched.removeAll() }
            return Array(state.watched.values)
        }
        for presenter in removed { FileCoordinator.removeFilePresenter(presenter) }
    }
}

/// The presenter of one directory of documents' files (see ``DormantDocuments``).
final class DirectoryPresenter: FilePresenter, Sendable {
    /// What the presenter reports to.
    struct Handlers: Sendable {
        var onChange: @Sendable (String) -> Void
        var onMove: @Sendable (String, String) -> Void
        var onOverflow: @Sendable (String) -> Void
    }

    private let url: URL
    private let queue: OperationQueue
    private let handlers: Handlers

    /// A presenter of the directory at `url`, whose messages arrive on `queue`.
    init(url: URL, queue: OperationQueue, handlers: Handlers) {
        self.url = url
        self.queue = queue
        self.handlers = handlers
    }

    var presentedItemURL: URL? { url }
    var presentedItemOperationQueue: OperationQueue { queue }
    var observesUncoordinatedChanges: Bool { true }

    func presentedSubitemDidChange(at url: URL) { handlers.onChange(url.path) }
    func presentedSubitemDidAppear(at url: URL) { handlers.onChange(url.path) }

    func accommodatePresentedSubitemDeletion(
        at url: URL, completionHandler: @escaping @Sendable ((any Error)?) -> Void
    ) {
        completionHandler(nil)
        handlers.onChange(url.path)
    }

    func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) { handlers.onMove(oldURL.path, newURL.path) }

    /// Changes may have been lost: the directory's watch came back, or the kernel's queue overflowed.
    func presentedItemDidChange() { handlers.onOverflow(url.path) }
}
