import FileCoordinationCompat
import Foundation
import AppleStyleWrappers
import Testing

// Everything from here to the tests is ordinary Apple-platform code, unchanged: a presenter class written
// against NSFilePresenter and the sentinel-variable pattern of coordinate(writingItemAt:options:error:byAccessor:).

final class NotesDocument: NSObject, NSFilePresenter, @unchecked Sendable {
    var presentedItemURL: URL?
    let presentedItemOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    private let lock = NSLock()
    private var _events: [String] = []
    var events: [String] { lock.lock(); defer { lock.unlock() }; return _events }

    init(url: URL) {
        presentedItemURL = url
        super.init()
        NSFileCoordinator.addFilePresenter(self)
    }

    func close() {
        NSFileCoordinator.removeFilePresenter(self)
    }

    private func record(_ event: String) {
        lock.lock()
        _events.append(event)
        lock.unlock()
    }

    func relinquishPresentedItem(toWriter writer: @escaping @Sendable ((@Sendable () -> Void)?) -> Void) {
        record("relinquish")
        writer { [weak self] in self?.record("reacquire") }
    }

    func presentedItemDidChange() {
        record("changed")
    }

    func savePresentedItemChanges(completionHandler: @escaping @Sendable (Error?) -> Void) {
        record("save")
        completionHandler(nil)
    }
}

func saveText(_ text: String, to url: URL) -> (Bool, NSError?) {
    let coordinator = NSFileCoordinator(filePresenter: nil)
    var error: NSError?
    var succeeded = false
    coordinator.coordinate(writingItemAt: url, options: .forReplacing, error: &error) { newURL in
        do {
            try text.write(to: newURL, atomically: true, encoding: .utf8)
            succeeded = true
        } catch {
            succeeded = false
        }
    }
    return (succeeded, error)
}

func loadText(from url: URL, cancelFirst: Bool = false) -> (String?, NSError?) {
    let coordinator = NSFileCoordinator(filePresenter: nil)
    if cancelFirst { coordinator.cancel() }
    var error: NSError?
    var text: String?
    coordinator.coordinate(readingItemAt: url, options: [.withoutChanges], error: &error) { newURL in
        text = try? String(contentsOf: newURL, encoding: .utf8)
    }
    return (text, error)
}

// End of the Apple-platform code.

@Suite("Apple-style code compiles and runs unchanged")
struct AppleStyleCodeTests {
    static func temporaryFile() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("notes.txt")
    }

    @Test("the sentinel pattern writes and reads through coordination")
    func sentinelPattern() throws {
        let url = try Self.temporaryFile()
        let (saved, saveError) = saveText("hello", to: url)
        #expect(saved && saveError == nil)
        let (text, loadError) = loadText(from: url)
        #expect(text == "hello" && loadError == nil)
    }

    @Test("an Apple-style presenter hears about a coordinated write, in Apple's order")
    func presenterHearsWrite() async throws {
        let url = try Self.temporaryFile()
        try "first".write(to: url, atomically: true, encoding: .utf8)
        let document = NotesDocument(url: url)
        defer { document.close() }
        let (saved, _) = saveText("second", to: url)
        #expect(saved)
        let deadline = Date().addingTimeInterval(5)
        while document.events.count < 2 && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(document.events == ["relinquish", "reacquire"])  // .forReplacing sends no didChange
    }

    @Test("cancellation reaches the error pointer as NSCocoaErrorDomain 3072 and the accessor does not run")
    func cancellationError() throws {
        let url = try Self.temporaryFile()
        try "x".write(to: url, atomically: true, encoding: .utf8)
        let (text, error) = loadText(from: url, cancelFirst: true)
        #expect(text == nil)
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(error?.code == NSUserCancelledError)
    }

    @Test("a non-file URL reaches the error pointer instead of being ignored")
    func nonFileURL() {
        let (text, error) = loadText(from: URL(string: "https://example.com/notes.txt")!)
        #expect(text == nil)
        #expect(error != nil)
    }
}

/// Point 5 of issue 15: code that declares throwing wrappers on `NSFileCoordinator` in its own module (as
/// `AppleStyleWrappers` does) calls them with a trailing closure, as on Apple platforms, without ambiguity.
@Suite("Apple-style wrappers declared in another module")
struct AppleStyleWrapperTests {
    @Test("a throwing wrapper called with a trailing closure is the wrapper, unambiguously")
    func trailingClosureWrapper() throws {
        let url = try AppleStyleCodeTests.temporaryFile()
        let coordinator = NSFileCoordinator(filePresenter: nil)
        try coordinator.coordinate(writingItemAt: url, options: .forReplacing) { url in
            try "through the wrapper".write(to: url, atomically: true, encoding: .utf8)
        }
        var read: String?
        try coordinator.coordinate(readingItemAt: url) { url in
            read = try String(contentsOf: url, encoding: .utf8)
        }
        #expect(read == "through the wrapper")
        let returned: String = try coordinator.coordinate(readingItemAt: url) { url in
            try String(contentsOf: url, encoding: .utf8)
        }
        #expect(returned == "through the wrapper")
        struct Refused: Error {}
        #expect(throws: Refused.self) { try coordinator.coordinate(readingItemAt: url) { _ in throw Refused() } }
    }

    @Test("NSFileCoordinator and Quire's FileCoordinator coordinate with each other")
    func sameMachinery() throws {
        let url = try AppleStyleCodeTests.temporaryFile()
        try "x".write(to: url, atomically: true, encoding: .utf8)
        let apple = NSFileCoordinator()
        var error: NSError?
        var nested = false
        apple.coordinate(writingItemAt: url, options: [], error: &error) { _ in
            // Another coordinator's read of the item waits for this write (one machinery): it times out.
            let quire = FileCoordinator()
            quire.timeout = .milliseconds(200)
            nested = (try? quire.coordinate(readingItemAt: url) { _ in true }) == nil
        }
        #expect(error == nil)
        #expect(nested, "a Quire read of the item went through while an NSFileCoordinator write held it")
        #expect(try FileCoordinator().coordinate(readingItemAt: url) { _ in true })
    }
}

/// Point 6 of issue 15 (presenter members): Apple's members that Linux has no use for are protocol
/// requirements, so a class that implements them is reached through `NSFilePresenter`, never silently ignored.
final class UbiquitousNotes: NSObject, NSFilePresenter, @unchecked Sendable {
    var presentedItemURL: URL? { URL(fileURLWithPath: "/tmp/notes.txt") }
    let presentedItemOperationQueue = OperationQueue()
    var primaryPresentedItemURL: URL? { URL(fileURLWithPath: "/tmp/notes.md") }
    var observedPresentedItemUbiquityAttributes: Set<URLResourceKey> { [.ubiquitousItemIsUploadedKey] }
    var heard: [String] = []

    func presentedItemDidChangeUbiquityAttributes(_ attributes: Set<URLResourceKey>) {
        heard.append("ubiquity")
    }

    func accommodatePresentedItemEviction(completionHandler: @escaping @Sendable (Error?) -> Void) {
        heard.append("eviction")
        completionHandler(nil)
    }
}

@Suite("Apple's presenter members without a Linux counterpart")
struct ApplePresenterMemberTests {
    @Test("a class's implementations are the protocol's: reached through any NSFilePresenter")
    func membersAreRequirements() {
        let notes = UbiquitousNotes()
        let presenter: any NSFilePresenter = notes
        #expect(presenter.primaryPresentedItemURL?.lastPathComponent == "notes.md")
        #expect(presenter.observedPresentedItemUbiquityAttributes == [.ubiquitousItemIsUploadedKey])
        presenter.presentedItemDidChangeUbiquityAttributes([])
        presenter.accommodatePresentedItemEviction { _ in }
        #expect(notes.heard == ["ubiquity", "eviction"])
        NSFileCoordinator().item(at: URL(fileURLWithPath: "/tmp/notes.txt"), didChangeUbiquityAttributes: [])
    }
}
