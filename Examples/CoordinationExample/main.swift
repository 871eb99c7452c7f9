// A runnable example of file coordination: `swift run CoordinationExample`.
// A presenter keeps a file "open"; a coordinator writes it; the presenter hears about it in Apple's order.
import FileCoordination
import Foundation

/// Presents one file and prints every message it receives.
final class NotePresenter: FilePresenter, @unchecked Sendable {
    let presentedItemURL: URL?
    let presentedItemOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1  // a serial queue keeps messages in order
        return queue
    }()
    let changed = DispatchSemaphore(value: 0)

    init(url: URL) { presentedItemURL = url }

    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        print("presenter: relinquish to writer")
        writer { print("presenter: reacquire") }
    }

    func presentedItemDidChange() {
        print("presenter: the file changed")
        changed.signal()
    }
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-example-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let note = directory.appendingPathComponent("note.txt")
try "first draft".write(to: note, atomically: true, encoding: .utf8)

let presenter = NotePresenter(url: note)
FileCoordinator.addFilePresenter(presenter)
defer { FileCoordinator.removeFilePresenter(presenter) }

let coordinator = FileCoordinator()
coordinator.timeout = .seconds(5)  // Quire extension: never wait forever
try coordinator.coordinate(writingItemAt: note) { url in
    print("writer: writing \(url.lastPathComponent)")
    try "second draft".write(to: url, atomically: true, encoding: .utf8)
}
let text = try FileCoordinator().coordinate(readingItemAt: note, options: .withoutChanges) { url in
    try String(contentsOf: url, encoding: .utf8)
}
print("reader: \(text)")
_ = presenter.changed.wait(timeout: .now() + 5)
