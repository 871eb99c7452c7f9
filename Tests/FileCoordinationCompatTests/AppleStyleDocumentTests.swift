import FileCoordinationCompat
import Foundation
import Testing

// Everything from here to the tests is ordinary Apple-platform code, unchanged: a small document that presents its
// file, reads and saves it through a coordinator made with itself, and resolves version conflicts the usual way
// (presentedItemDidGain -> unresolvedConflictVersionsOfItem -> keep the newest -> isResolved ->
// removeOtherVersionsOfItem), inside a coordinated write.

final class TextDocument: NSObject, NSFilePresenter, @unchecked Sendable {
    var presentedItemURL: URL?
    let presentedItemOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }()
    private let lock = NSLock()
    private var _text = ""
    private var _log: [String] = []

    var text: String { lock.lock(); defer { lock.unlock() }; return _text }
    var log: [String] { lock.lock(); defer { lock.unlock() }; return _log }

    init(url: URL) {
        presentedItemURL = url
        super.init()
        NSFileCoordinator.addFilePresenter(self)
        read()
    }

    func close() {
        NSFileCoordinator.removeFilePresenter(self)
    }

    private func note(_ entry: String) {
        lock.lock()
        _log.append(entry)
        lock.unlock()
    }

    func read() {
        guard let url = presentedItemURL else { return }
        var error: NSError?
        NSFileCoordinator(filePresenter: self).coordinate(readingItemAt: url, options: [], error: &error) { url in
            guard let data = try? Data(contentsOf: url) else { return }
            lock.lock()
            _text = String(decoding: data, as: UTF8.self)
            lock.unlock()
        }
    }

    func save(_ text: String) -> Bool {
        guard let url = presentedItemURL else { return false }
        var error: NSError?
        var saved = false
        NSFileCoordinator(filePresenter: self).coordinate(writingItemAt: url, options: .forReplacing, error: &error) {
            url in
            saved = (try? Data(text.utf8).write(to: url, options: .atomic)) != nil
        }
        return saved && error == nil
    }

    func presentedItemDidChange() {
        note("changed")
        read()
    }

    func presentedItemDidGain(_ version: NSFileVersion) {
        note(version.isConflict ? "gained conflict" : "gained version")
        if version.isConflict { resolveConflicts() }
    }

    func presentedItemDidResolveConflict(_ version: NSFileVersion) {
        note("resolved")
    }

    func presentedItemDidLose(_ version: NSFileVersion) {
        note("lost")
    }

    /// Keeps whichever is newest, the file or a conflict version, and forgets the others.
    func resolveConflicts() {
        guard let url = presentedItemURL else { return }
        var error: NSError?
        NSFileCoordinator(filePresenter: self).coordinate(writingItemAt: url, options: .forReplacing, error: &error) {
            url in
            guard let conflicts = NSFileVersion.unresolvedConflictVersionsOfItem(at: url), !conflicts.isEmpty else {
                return
            }
            let current = NSFileVersion.currentVersionOfItem(at: url)
            let newest = conflicts.max { ($0.modificationDate ?? .distantPast) < ($1.modificationDate ?? .distantPast) }
            if let newest, (newest.modificationDate ?? .distantPast) > (current?.modificationDate ?? .distantPast) {
                _ = try? newest.replaceItem(at: url, options: [])
            }
            for conflict in conflicts {
                conflict.isResolved = true
            }
            try? NSFileVersion.removeOtherVersionsOfItem(at: url)
        }
        if error == nil { read() }
    }
}

// End of the Apple-platform code.

@Suite("An Apple-style document resolves version conflicts unchanged")
struct AppleStyleDocumentTests {
    /// A fresh file holding `text`, last modified `age` seconds ago.
    static func file(_ name: String, _ text: String, age: TimeInterval) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: url.path)
        return url
    }

    @Test("a newer conflict version wins: the document takes it, resolves it and removes the versions")
    func newerConflictWins() async throws {
        let url = try Self.file("draft.txt", "mine", age: 600)
        let document = TextDocument(url: url)
        defer { document.close() }
        #expect(document.text == "mine")

        // What iCloud does when another computer saved the file: a conflict version appears.
        let theirs = try Self.file("draft.txt", "theirs", age: 5)
        _ = try FileVersion.addConflictVersion(ofItemAt: url, withContentsOf: theirs)

        let deadline = Date(timeIntervalSinceNow: 10)
        while !document.log.contains("lost") && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(document.log == ["gained conflict", "resolved", "lost"])
        #expect(document.text == "theirs")
        #expect(try String(contentsOf: url, encoding: .utf8) == "theirs")
        #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: url)?.isEmpty == true)
        #expect(NSFileVersion.otherVersionsOfItem(at: url)?.isEmpty == true)
    }

    @Test("an older conflict version loses: the file stays, the conflict is resolved all the same")
    func olderConflictLoses() async throws {
        let url = try Self.file("draft.txt", "mine", age: 5)
        let document = TextDocument(url: url)
        defer { document.close() }
        #expect(document.save("mine, edited"))
        let theirs = try Self.file("draft.txt", "theirs", age: 600)
        _ = try FileVersion.addConflictVersion(ofItemAt: url, withContentsOf: theirs)

        let deadline = Date(timeIntervalSinceNow: 10)
        while !document.log.contains("lost") && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(document.log == ["gained conflict", "resolved", "lost"])
        #expect(document.text == "mine, edited")
        #expect(NSFileVersion.otherVersionsOfItem(at: url)?.isEmpty == true)
    }
}
