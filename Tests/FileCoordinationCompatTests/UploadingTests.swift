import FileCoordinationCompat
import Foundation
import Testing

// Apple-platform code, unchanged: the upload helper of Apple's DTS answer (zip a folder with .forUploading and
// move the archive out of the accessor). Before issue 15 it moved the user's folder itself away.

func archiveForUpload(_ item: URL, to destination: URL) -> (Bool, NSError?) {
    let coordinator = NSFileCoordinator(filePresenter: nil)
    var error: NSError?
    var moved = false
    coordinator.coordinate(readingItemAt: item, options: [.forUploading], error: &error) { snapshotURL in
        do {
            try FileManager.default.moveItem(at: snapshotURL, to: destination)
            moved = true
        } catch {
            moved = false
        }
    }
    return (moved, error)
}

// End of the Apple-platform code.

@Suite("Apple-style .forUploading")
struct UploadingTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("quire-compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("the upload helper moves away a zip archive of the folder, never the folder")
    func folderUpload() throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let vault = root.appendingPathComponent("Vault")
        try FileManager.default.createDirectory(at: vault, withIntermediateDirectories: true)
        try "secret".write(to: vault.appendingPathComponent("key.txt"), atomically: true, encoding: .utf8)
        let destination = root.appendingPathComponent("outbox.zip")
        let (moved, error) = archiveForUpload(vault, to: destination)
        #expect(moved && error == nil)
        let head = (try? Data(contentsOf: destination))?.prefix(4)
        #expect(head == Data("PK\u{3}\u{4}".utf8))
        #expect((try? String(contentsOf: vault.appendingPathComponent("key.txt"), encoding: .utf8)) == "secret")
    }

    @Test("a file's snapshot is a same-named copy at another path, removed after the block")
    func fileUpload() throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("notes.txt")
        try "hello".write(to: file, atomically: true, encoding: .utf8)
        var error: NSError?
        var seen: URL?
        NSFileCoordinator().coordinate(readingItemAt: file, options: .forUploading, error: &error) { url in
            seen = url
            #expect(url.lastPathComponent == "notes.txt")
            #expect(url.standardizedFileURL.path != file.standardizedFileURL.path)
            #expect((try? String(contentsOf: url, encoding: .utf8)) == "hello")
        }
        #expect(error == nil)
        let snapshot = try #require(seen)
        #expect(!FileManager.default.fileExists(atPath: snapshot.path))
        #expect((try? String(contentsOf: file, encoding: .utf8)) == "hello")
    }

    @Test("a writer proceeds while the upload accessor still runs")
    func writerProceeds() throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("draft.txt")
        try "old".write(to: file, atomically: true, encoding: .utf8)
        let entered = DispatchSemaphore(value: 0)
        let written = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        Thread {
            var error: NSError?
            NSFileCoordinator().coordinate(readingItemAt: file, options: .forUploading, error: &error) { url in
                entered.signal()
                let writerDone = written.wait(timeout: .now() + 10) == .success
                outcome.set(writerDone, try? String(contentsOf: url, encoding: .utf8))
            }
            finished.signal()
        }.start()
        #expect(entered.wait(timeout: .now() + 10) == .success)
        var error: NSError?
        NSFileCoordinator().coordinate(writingItemAt: file, options: [], error: &error) { url in
            try? "new".write(to: url, atomically: false, encoding: .utf8)
        }
        #expect(error == nil)
        written.signal()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(outcome.writerDone == true)
        #expect(outcome.snapshotText == "old")
        #expect((try? String(contentsOf: file, encoding: .utf8)) == "new")
    }
}

/// What the upload accessor saw, set on its thread.
final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (Bool, String?)?

    func set(_ writerDone: Bool, _ text: String?) { lock.withLock { stored = (writerDone, text) } }
    var writerDone: Bool? { lock.withLock { stored?.0 } }
    var snapshotText: String? { lock.withLock { stored?.1 } }
}
