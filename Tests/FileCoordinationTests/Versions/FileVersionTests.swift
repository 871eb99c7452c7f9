import FileCoordination
import Foundation
import Testing

// All of these fail on main before the versions store: FileVersion and FileVersionStore did not exist.
@Suite("File versions: the per-user versions store")
struct FileVersionTests {
    @Test("an added version keeps the bytes of that time, is listed, and replaceItem restores them")
    func addListReplace() throws {
        let sandbox = try VersionsSandbox()
        try sandbox.run {
            let item = try sandbox.write("one", to: "report.pdf")
            #expect(try FileVersion.otherVersions(ofItemAt: item).isEmpty)
            let added = try FileVersion.add(ofItemAt: item, withContentsOf: item)
            try sandbox.write("two", to: "report.pdf")

            let listed = try FileVersion.otherVersions(ofItemAt: item)
            #expect(listed.map(\.id) == [added.id])
            #expect(try sandbox.text(at: listed[0].url) == "one")
            #expect(listed[0].localizedName == "report.pdf")
            #expect(listed[0].modificationDate != nil)
            #expect(!listed[0].isConflict && listed[0].isResolved && !listed[0].isDiscardable)

            let current = try #require(try FileVersion.current(ofItemAt: item))
            #expect(current.isCurrent && current.url == item)
            #expect(try FileVersion.current(ofItemAt: sandbox.items.appendingPathComponent("missing")) == nil)

            #expect(try listed[0].replaceItem(at: item) == item)
            #expect(try sandbox.text(at: item) == "one")
            #expect(try FileVersion.otherVersions(ofItemAt: item).count == 1, "a copying replace keeps the version")
        }
    }

    @Test("adding and replacing by moving move the contents; removeOtherVersions empties the list")
    func movingAndRemoving() throws {
        let sandbox = try VersionsSandbox()
        try sandbox.run {
            let item = try sandbox.write("now", to: "a.txt")
            let contents = try sandbox.write("before", to: "staged.txt")
            let moved = try FileVersion.add(ofItemAt: item, withContentsOf: contents, byMoving: true)
            #expect(!FileManager.default.fileExists(atPath: contents.path))
            #expect(try sandbox.text(at: moved.url) == "before")

            try moved.replaceItem(at: item, byMoving: true)
            #expect(try sandbox.text(at: item) == "before")
            #expect(try FileVersion.otherVersions(ofItemAt: item).isEmpty, "a moving replace takes the version out")

            try FileVersion.add(ofItemAt: item, withContentsOf: item)
            try FileVersion.addConflictVersion(ofItemAt: item, withContentsOf: item)
            #expect(try FileVersion.otherVersions(ofItemAt: item).count == 2)
            try FileVersion.removeOtherVersions(ofItemAt: item)
            #expect(try FileVersion.otherVersions(ofItemAt: item).isEmpty)
            #expect(try FileVersion.unresolvedConflictVersions(ofItemAt: item).isEmpty)
        }
    }

    @Test("a conflict version is unresolved until resolved; the discardable flag persists")
    func conflictAndFlags() throws {
        let sandbox = try VersionsSandbox()
        try sandbox.run {
            let item = try sandbox.write("mine", to: "c.txt")
            let theirs = try sandbox.write("theirs", to: "theirs.txt")
            let conflict = try FileVersion.addConflictVersion(ofItemAt: item, withContentsOf: theirs)
            #expect(conflict.isConflict && !conflict.isResolved)
            #expect(try FileVersion.unresolvedConflictVersions(ofItemAt: item).map(\.id) == [conflict.id])
            #expect(try FileVersion.otherVersions(ofItemAt: item).map(\.id) == [conflict.id])

            let resolved = try conflict.setResolved(true)
            #expect(resolved.isResolved)
            #expect(try FileVersion.unresolvedConflictVersions(ofItemAt: item).isEmpty)
            #expect(try FileVersion.otherVersions(ofItemAt: item).first?.isResolved == true)

            _ = try resolved.setDiscardable(true)
            #expect(try FileVersion.otherVersions(ofItemAt: item).first?.isDiscardable == true)

            let current = try #require(try FileVersion.current(ofItemAt: item))
            #expect(throws: FileVersionError.self) { try current.remove() }
            try resolved.remove()
            #expect(throws: FileVersionError.self) { try resolved.remove() }
        }
    }

    @Test("corrupt, oversized, misnamed and foreign metadata files are skipped, never fatal")
    func corruptMetadataSkipped() throws {
        let sandbox = try VersionsSandbox()
        try sandbox.run {
            let item = try sandbox.write("x", to: "d.txt")
            let good = try FileVersion.add(ofItemAt: item, withContentsOf: item)
            // The item's folder (named by its identity) holds the records; the contents are in contents/.
            let folder = good.url.deletingLastPathComponent().deletingLastPathComponent()
            func plant(_ id: String, _ bytes: Data) throws {
                try bytes.write(to: folder.appendingPathComponent(id + ".json"))
                try Data("data".utf8).write(to: folder.appendingPathComponent("contents/\(id).txt"))
            }
            try plant(UUID().uuidString, Data("{ not json".utf8))
            try plant(UUID().uuidString, Data(repeating: 0x20, count: 100_000))
            try plant("not-a-uuid", Data("{}".utf8))
            // A well-formed record of another item, and one whose id is not its file name.
            var foreign = try String(
                decoding: Data(contentsOf: folder.appendingPathComponent(good.id + ".json")), as: UTF8.self)
            foreign = foreign.replacingOccurrences(
                of: folder.lastPathComponent, with: "u-00000000-0000-0000-0000-000000000000")
            try plant(UUID().uuidString, Data(foreign.utf8))
            let copied = try Data(contentsOf: folder.appendingPathComponent(good.id + ".json"))
            try plant(UUID().uuidString, copied)

            #expect(try FileVersion.otherVersions(ofItemAt: item).map(\.id) == [good.id])
            try Data("garbage".utf8).write(to: folder.appendingPathComponent(good.id + ".json"))
            #expect(try FileVersion.otherVersions(ofItemAt: item).isEmpty)
            #expect(throws: FileVersionError.self) { _ = try good.setResolved(true) }
            #expect(throws: FileVersionError.self) {
                try FileVersion.otherVersions(ofItemAt: URL(string: "https://x/y")!)
            }
        }
    }

    @Test("the store follows QUIRE_VERSIONS_DIR, else XDG_DATA_HOME, else ~/.local/share")
    func standardDirectory() {
        let environment = ProcessInfo.processInfo.environment
        let expected: String
        if let explicit = environment["QUIRE_VERSIONS_DIR"], !explicit.isEmpty {
            expected = explicit
        } else if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            expected = data + "/quire/versions"
        } else {
            expected = NSHomeDirectory() + "/.local/share/quire/versions"
        }
        #expect(
            FileVersionStore.standardDirectory.standardizedFileURL.path
                == URL(fileURLWithPath: expected).standardizedFileURL.path)
    }
}
