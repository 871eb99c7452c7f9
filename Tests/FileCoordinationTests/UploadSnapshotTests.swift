import FileCoordination
import Foundation
import Testing
import ZIPFoundation

#if canImport(Glibc)
import Glibc
#endif

/// `.forUploading` (issue 15): the accessor gets a temporary snapshot it may move away, never the item itself;
/// a directory's is a zip archive `<name>.zip`; the claim ends once the snapshot exists.
@Suite("Reading for uploading")
struct UploadSnapshotTests {
    @Test("a file's snapshot is a copy with the same name and bytes elsewhere; moving it away leaves the item; it is removed after the block")
    func fileSnapshot() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = tree.url("report.pdf")
        try bytes.write(to: file)
        let moved = tree.url("uploaded.pdf")
        let seen = try makeCoordinator().coordinate(readingItemAt: file, options: .forUploading) { url -> URL in
            #expect(url.lastPathComponent == "report.pdf")
            #expect(!samePath(url, file))
            #expect((try? Data(contentsOf: url)) == bytes)
            #expect(Self.mode(of: url.deletingLastPathComponent()) == 0o700)
            #expect((try? FileManager.default.moveItem(at: url, to: moved)) != nil)
            return url
        }
        #expect((try? Data(contentsOf: file)) == bytes)
        #expect((try? Data(contentsOf: moved)) == bytes)
        #expect(!FileManager.default.fileExists(atPath: seen.path))
        #expect(!FileManager.default.fileExists(atPath: seen.deletingLastPathComponent().path))
    }

    @Test("a snapshot the accessor leaves in place is removed after the block, also when the accessor throws")
    func snapshotRemovedAfterThrow() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("notes.txt", contents: "notes")
        let seen = Locked<URL?>(nil)
        #expect(throws: PresenterRefusal.self) {
            try makeCoordinator().coordinate(readingItemAt: file, options: .forUploading) { url in
                seen.value = url
                #expect(FileManager.default.fileExists(atPath: url.path))
                throw PresenterRefusal(reason: "upload failed")
            }
        }
        let url = try #require(seen.value)
        #expect(!FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path))
        #expect((try? String(contentsOf: file, encoding: .utf8)) == "notes")
    }

    @Test("a directory's snapshot is a zip archive <name>.zip of the tree; moving it away leaves the directory")
    func directorySnapshot() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let vault = try Self.makeVault(in: tree)
        let moved = tree.url("Vault-upload.zip")
        let seen = try makeCoordinator().coordinate(readingItemAt: vault, options: .forUploading) { url -> URL in
            #expect(url.lastPathComponent == "Vault.zip")
            #expect(!samePath(url.deletingLastPathComponent(), tree.root))
            let head = (try? Data(contentsOf: url))?.prefix(4)
            #expect(head == Data([0x50, 0x4B, 0x03, 0x04]))  // "PK\u{3}\u{4}"
            #expect((try? FileManager.default.moveItem(at: url, to: moved)) != nil)
            return url
        }
        #expect(!FileManager.default.fileExists(atPath: seen.deletingLastPathComponent().path))
        // The directory is still there, whole.
        #expect(try Self.listing(of: vault) == Self.vaultListing)
        // The archive holds Vault/ and the same tree.
        let unzipped = tree.url("unzipped")
        try FileManager.default.unzipItem(at: moved, to: unzipped)
        #expect(try Self.listing(of: unzipped.appendingPathComponent("Vault")) == Self.vaultListing)
    }

    @Test("a link out of the tree is stored as a link, and a FIFO inside does not hang the snapshot")
    func hostileDirectory() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let secret = try tree.file("outside/secret.txt", contents: "do not upload")
        let vault = try tree.directory("Vault")
        try tree.file("Vault/a.txt", contents: "a")
        try FileManager.default.createSymbolicLink(atPath: vault.path + "/escape", withDestinationPath: "../outside")
        try FileManager.default.createSymbolicLink(atPath: vault.path + "/secret-link", withDestinationPath: secret.path)
        #expect(mkfifo(vault.path + "/pipe", 0o600) == 0)
        let call = BackgroundCall { () -> [String: String] in
            try makeCoordinator().coordinate(readingItemAt: vault, options: .forUploading) { url in
                var entries: [String: String] = [:]
                let archive = try Archive(url: url, accessMode: .read)
                for entry in archive { entries[entry.path] = "\(entry.type)" }
                return entries
            }
        }
        let entries = try #require(call.result()).get()
        #expect(entries["Vault/escape"] == "symlink")
        #expect(entries["Vault/secret-link"] == "symlink")
        #expect(entries["Vault/a.txt"] == "file")
        #expect(entries["Vault/pipe"] == nil)
        #expect(!entries.keys.contains { $0.hasPrefix("Vault/escape/") })
    }

    @Test("a snapshot that cannot be made throws snapshotFailed and the accessor does not run")
    func snapshotFailure() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let fifo = tree.url("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        for item in [fifo, tree.url("missing.txt")] {
            let ran = Locked(false)
            let call = BackgroundCall {
                try makeCoordinator().coordinate(readingItemAt: item, options: .forUploading) { _ in ran.value = true }
            }
            let outcome = try #require(call.result())
            guard case .failure(let error) = outcome, case .snapshotFailed(let url, _) = error as? FileCoordinationError
            else {
                Issue.record("expected snapshotFailed for \(item.lastPathComponent), got \(outcome)")
                continue
            }
            #expect(samePath(url, item))
            #expect("\(error)".contains(item.path))
            #expect(!ran.value)
        }
    }

    @Test("a symbolic link is snapshotted as its target with .resolvesSymbolicLink, and refused without it")
    func symbolicLink() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        try tree.file("target.txt", contents: "target")
        let link = tree.url("link.txt")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "target.txt")
        let text = try makeCoordinator().coordinate(
            readingItemAt: link, options: [.forUploading, .resolvesSymbolicLink]
        ) { url in
            #expect(url.lastPathComponent == "target.txt")
            return try String(contentsOf: url, encoding: .utf8)
        }
        #expect(text == "target")
        do {
            try makeCoordinator().coordinate(readingItemAt: link, options: .forUploading) { _ in
                Issue.record("the accessor ran")
            }
            Issue.record("no error")
        } catch FileCoordinationError.snapshotFailed(_, let cause) {
            #expect("\(cause)".contains(".resolvesSymbolicLink"))
        }
    }

    @Test("the claim ends once the snapshot exists: a writer proceeds while the upload accessor still runs")
    func writerProceedsDuringUpload() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("draft.txt", contents: "old")
        let entered = Signal()
        let written = Signal()
        let upload = BackgroundCall { () -> (writerFinishedFirst: Bool, snapshot: String?) in
            try makeCoordinator().coordinate(readingItemAt: file, options: .forUploading) { url in
                entered.signal()
                let finished = written.wait()
                return (finished, try? String(contentsOf: url, encoding: .utf8))
            }
        }
        #expect(entered.wait())
        try makeCoordinator().coordinate(writingItemAt: file) { url in
            try Data("new".utf8).write(to: url)
        }
        written.signal()
        let result = try #require(upload.result()).get()
        // The writer's access ended before the upload accessor returned (it waited for `written`, which the
        // writer's return let through), and the snapshot kept the bytes it was taken with.
        #expect(result.writerFinishedFirst)
        #expect(result.snapshot == "old")
        #expect((try? String(contentsOf: file, encoding: .utf8)) == "new")
    }

    @Test("with a write in the same access the claim lasts until the accessor returns; the read still gets a snapshot")
    func uploadWithWriteKeepsClaim() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let source = try tree.file("source.txt", contents: "source")
        let target = try tree.file("target.txt", contents: "target")
        let gate = Gate()
        let access = BackgroundCall { () -> URL in
            try makeCoordinator().coordinate(
                readingItemAt: source, options: .forUploading, writingItemAt: target
            ) { snapshot, writing in
                #expect(!samePath(snapshot, source) && snapshot.lastPathComponent == "source.txt")
                #expect(samePath(writing, target))
                gate.pass()
                return snapshot
            }
        }
        #expect(gate.entered.wait())
        let writer = BackgroundCall { try makeCoordinator().coordinate(writingItemAt: target) { _ in } }
        #expect(writer.isStillRunning())
        gate.release.signal()
        let snapshot = try #require(access.result()).get()
        #expect(throws: Never.self) { try #require(writer.result()).get() }
        #expect(!FileManager.default.fileExists(atPath: snapshot.path))
    }

    @Test("an intent for uploading carries the snapshot's URL into the queue accessor")
    func intentOnQueue() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let vault = try Self.makeVault(in: tree)
        let intent = FileAccessIntent.readingIntent(with: vault, options: .forUploading)
        let seen = Locked<(url: URL, existed: Bool)?>(nil)
        let done = Signal()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        makeCoordinator().coordinate(with: [intent], queue: queue) { error in
            #expect(error == nil)
            seen.value = (intent.url, FileManager.default.fileExists(atPath: intent.url.path))
            done.signal()
        }
        #expect(done.wait())
        let (url, existed) = try #require(seen.value)
        #expect(url.lastPathComponent == "Vault.zip" && existed)
        // Removed after the accessor returned, in the same operation: one queued after it on the serial queue
        // sees it gone.
        let after = Signal()
        queue.addOperation { after.signal() }
        #expect(after.wait())
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try Self.listing(of: vault) == Self.vaultListing)
    }

    @Test("the async intents form hands the accessor the snapshot and removes it afterwards")
    func intentAsync() async throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("data.bin", contents: "payload")
        let intent = FileAccessIntent.readingIntent(with: file, options: .forUploading)
        let seen = try await makeCoordinator().coordinate(with: [intent]) { urls in
            #expect(urls[0] == intent.url)
            #expect(!samePath(urls[0], file) && urls[0].lastPathComponent == "data.bin")
            #expect((try? String(contentsOf: urls[0], encoding: .utf8)) == "payload")
            return urls[0]
        }
        #expect(!FileManager.default.fileExists(atPath: seen.path))
    }

    // MARK: - Helpers

    static let vaultListing = [
        "a.txt: file alpha", "empty: directory", "link: link a.txt", "sub: directory",
        "sub/b.bin: file 00ff10", "sub/deeper: directory", "sub/deeper/c.txt: file gamma",
    ]

    /// Vault/ with files, an empty directory, nested directories and a link inside the tree.
    static func makeVault(in tree: TemporaryTree) throws -> URL {
        let vault = try tree.directory("Vault")
        try tree.file("Vault/a.txt", contents: "alpha")
        try tree.directory("Vault/empty")
        try Data([0x00, 0xFF, 0x10]).write(to: tree.url("Vault/sub/b.bin").creatingParent())
        try tree.file("Vault/sub/deeper/c.txt", contents: "gamma")
        try FileManager.default.createSymbolicLink(atPath: vault.path + "/link", withDestinationPath: "a.txt")
        return vault
    }

    /// Every item under `root`, sorted: its relative path, kind and contents (text, or hex for bytes).
    static func listing(of root: URL) throws -> [String] {
        let manager = FileManager.default
        return try manager.subpathsOfDirectory(atPath: root.path).sorted().map { path in
            let full = root.path + "/" + path
            if let destination = try? manager.destinationOfSymbolicLink(atPath: full) {
                return "\(path): link \(destination)"
            }
            var isDirectory: ObjCBool = false
            _ = manager.fileExists(atPath: full, isDirectory: &isDirectory)
            if isDirectory.boolValue { return "\(path): directory" }
            let data = try Data(contentsOf: URL(fileURLWithPath: full))
            let text = String(data: data, encoding: .utf8).flatMap { $0.allSatisfy(\.isLetter) ? $0 : nil }
            return "\(path): file \(text ?? data.map { String(format: "%02x", $0) }.joined())"
        }
    }

    static func mode(of url: URL) -> mode_t {
        var info = stat()
        return lstat(url.path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }
}

extension URL {
    /// Creates this URL's parent directory and returns the URL.
    fileprivate func creatingParent() throws -> URL {
        try FileManager.default.createDirectory(at: deletingLastPathComponent(), withIntermediateDirectories: true)
        return self
    }
}
