import Foundation
import Synchronization
import Testing

// BEGIN PORTING GUIDE EXAMPLE (Docs/apple-compatibility.md; the test below checks that both are the same)
import FileCoordinationCompat
import Foundation

final class FolderWatcher: NSObject, NSFilePresenter {
    let presentedItemURL: URL?
    let presentedItemOperationQueue = OperationQueue()
    var onChange: (URL) -> Void = { _ in }

    init(folder: URL) {
        presentedItemURL = folder
        presentedItemOperationQueue.maxConcurrentOperationCount = 1
        super.init()
        NSFileCoordinator.addFilePresenter(self)
    }

    func presentedSubitemDidChange(at url: URL) { onChange(url) }
    func presentedSubitemDidAppear(at url: URL) { fatalError("macOS never calls this") }
    func accommodatePresentedSubitemDeletion(at url: URL) async throws {}
}
// END PORTING GUIDE EXAMPLE

@Suite("The porting guide's example")
struct PortingGuideExampleTests {
    @Test("the example in Docs/apple-compatibility.md is this file's, word for word")
    func exampleIsTheDocumentedOne() throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let begin = try #require(source.range(of: "the test below checks that both are the same)\n"))
        let end = try #require(source.range(of: "// END PORTING GUIDE EXAMPLE"))
        let example = String(source[begin.upperBound..<end.lowerBound])
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let guide = try String(
            contentsOf: root.appendingPathComponent("Docs/apple-compatibility.md"), encoding: .utf8)
        #expect(guide.contains("```swift\n" + example + "```\n"))
    }

    @Test("the example's presenter hears a file created and one deleted in its folder, and does not trap")
    func exampleRuns() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-porting-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let watcher = FolderWatcher(folder: folder)
        defer { NSFileCoordinator.removeFilePresenter(watcher) }
        final class Heard: Sendable { let names = Mutex<[String]>([]) }
        let heard = Heard()
        watcher.onChange = { url in heard.names.withLock { $0.append(url.lastPathComponent) } }

        let note = folder.appendingPathComponent("note.txt")
        var error: NSError?
        NSFileCoordinator().coordinate(writingItemAt: note, options: .forReplacing, error: &error) { url in
            try? Data("hello".utf8).write(to: url, options: .atomic)
        }
        NSFileCoordinator().coordinate(writingItemAt: note, options: .forDeleting, error: &error) { url in
            try? FileManager.default.removeItem(at: url)
        }
        #expect(error == nil)
        let deadline = Date().addingTimeInterval(5)
        while heard.names.withLock({ $0.count }) < 2 && Date() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(heard.names.withLock { $0 } == ["note.txt", "note.txt"])
    }
}
