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
}
