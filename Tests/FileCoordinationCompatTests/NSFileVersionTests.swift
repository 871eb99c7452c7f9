import FileCoordinationCompat
import Foundation
import Testing

// Fails on main before the versions store: NSFileVersion did not exist on Linux.
@Suite("NSFileVersion, written as Apple-platform code uses it")
struct NSFileVersionTests {
    /// Runs `body` with a private versions store and a folder for items, both removed afterwards.
    private func withSandbox(_ body: (URL) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "quire-nsversions-\(UUID().uuidString)")
        let items = root.appendingPathComponent("items")
        try FileManager.default.createDirectory(at: items, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try FileVersionStore.$current.withValue(FileVersionStore(directory: root.appendingPathComponent("store"))) {
            try body(items)
        }
    }

    @Test("add, list, replace and remove versions with Apple's members")
    func lifecycle() throws {
        try withSandbox { items in
            let item = items.appendingPathComponent("notes.txt")
            try Data("v1".utf8).write(to: item)
            let current = try #require(NSFileVersion.currentVersionOfItem(at: item))
            #expect(current.url == item && current.hasLocalContents && !current.hasThumbnail && !current.isConflict)

            let added = try NSFileVersion.addOfItem(at: item, withContentsOf: item, options: [])
            try Data("v2".utf8).write(to: item)
            let others = try #require(NSFileVersion.otherVersionsOfItem(at: item))
            #expect(others == [added])
            #expect(others[0].persistentIdentifier as? NSString == added.persistentIdentifier as? NSString)
            #expect(others[0].localizedName == "notes.txt")
            #expect(others[0].localizedNameOfSavingComputer != nil)
            #expect(others[0].modificationDate != nil)

            #expect(try others[0].replaceItem(at: item, options: []) == item)
            #expect(try Data(contentsOf: item) == Data("v1".utf8))

            let folder = NSFileVersion.temporaryDirectoryURLForNewVersionOfItem(at: item)
            let staged = folder.appendingPathComponent("notes.txt")
            try Data("v3".utf8).write(to: staged)
            _ = try NSFileVersion.addOfItem(at: item, withContentsOf: staged, options: .byMoving)
            #expect(!FileManager.default.fileExists(atPath: staged.path))
            #expect(NSFileVersion.otherVersionsOfItem(at: item)?.count == 2)

            try added.remove()
            #expect(NSFileVersion.otherVersionsOfItem(at: item)?.count == 1)
            try NSFileVersion.removeOtherVersionsOfItem(at: item)
            #expect(NSFileVersion.otherVersionsOfItem(at: item)?.isEmpty == true)
            #expect(throws: (any Error).self) { try current.remove() }
        }
    }

    @Test("conflict versions stay unresolved until isResolved = true; isDiscardable persists")
    func conflicts() throws {
        try withSandbox { items in
            let item = items.appendingPathComponent("doc.pdf")
            try Data("mine".utf8).write(to: item)
            let theirs = items.appendingPathComponent("theirs.pdf")
            try Data("theirs".utf8).write(to: theirs)
            _ = try FileVersion.addConflictVersion(ofItemAt: item, withContentsOf: theirs)

            let conflicts = try #require(NSFileVersion.unresolvedConflictVersionsOfItem(at: item))
            #expect(conflicts.count == 1 && conflicts[0].isConflict && !conflicts[0].isResolved)
            conflicts[0].isDiscardable = true
            #expect(NSFileVersion.otherVersionsOfItem(at: item)?.first?.isDiscardable == true)

            conflicts[0].isResolved = true
            #expect(conflicts[0].isResolved)
            #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: item)?.isEmpty == true)
            #expect(NSFileVersion.otherVersionsOfItem(at: item)?.first?.isResolved == true)
        }
    }

    // Issue 30, item 3: fails before versions were kept by the item's identity (they were kept by path).
    @Test("after a coordinated deletion, a new file at the path has neither the old versions nor its conflict")
    func deletedFileVersionsStayWithIt() throws {
        try withSandbox { items in
            let item = items.appendingPathComponent("report.txt")
            try Data("old".utf8).write(to: item)
            let theirs = items.appendingPathComponent("theirs.txt")
            try Data("theirs".utf8).write(to: theirs)
            _ = try NSFileVersion.addOfItem(at: item, withContentsOf: item)
            _ = try FileVersion.addConflictVersion(ofItemAt: item, withContentsOf: theirs)
            #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: item)?.count == 1)

            var error: NSError?
            NSFileCoordinator().coordinate(writingItemAt: item, options: .forDeleting, error: &error) { url in
                try? FileManager.default.removeItem(at: url)
            }
            #expect(error == nil)
            NSFileCoordinator().coordinate(writingItemAt: item, options: .forReplacing, error: &error) { url in
                try? Data("new and unrelated".utf8).write(to: url, options: .atomic)
            }
            #expect(error == nil)
            #expect(NSFileVersion.otherVersionsOfItem(at: item)?.isEmpty == true)
            #expect(NSFileVersion.unresolvedConflictVersionsOfItem(at: item)?.isEmpty == true)
        }
    }

    @Test("versions follow a coordinated move and a rename, and stay through saves that replace the file")
    func versionsFollowTheFile() throws {
        try withSandbox { items in
            let item = items.appendingPathComponent("draft.txt")
            try Data("v1".utf8).write(to: item)
            let added = try NSFileVersion.addOfItem(at: item, withContentsOf: item)

            // An Apple-style save: .forReplacing and an atomic write (a new file renamed over the item).
            var error: NSError?
            NSFileCoordinator().coordinate(writingItemAt: item, options: .forReplacing, error: &error) { url in
                try? Data("v2".utf8).write(to: url, options: .atomic)
            }
            #expect(error == nil)
            #expect(NSFileVersion.otherVersionsOfItem(at: item) == [added])

            let moved = items.appendingPathComponent("final.txt")
            let mover = NSFileCoordinator()
            mover.coordinate(
                writingItemAt: item, options: .forMoving, writingItemAt: moved, options: .forReplacing, error: &error
            ) { source, destination in
                try? FileManager.default.moveItem(at: source, to: destination)
                mover.item(at: source, didMoveTo: destination)
            }
            #expect(error == nil)
            let followed = try #require(NSFileVersion.otherVersionsOfItem(at: moved))
            #expect(followed.map { $0.persistentIdentifier as? NSString } == [added.persistentIdentifier as? NSString])
            #expect(NSFileVersion.otherVersionsOfItem(at: item)?.isEmpty ?? true)
            let first = try #require(followed.first)
            #expect(try Data(contentsOf: first.url) == Data("v1".utf8))
            try first.remove()
            #expect(NSFileVersion.otherVersionsOfItem(at: moved)?.isEmpty == true)
        }
    }
}
