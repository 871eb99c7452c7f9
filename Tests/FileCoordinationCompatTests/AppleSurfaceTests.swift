import FileCoordinationCompat
import Foundation
import Testing

/// A coordinator subclass, as apps write them (Apple's NSFileCoordinator is an open class).
final class CountingCoordinator: NSFileCoordinator, @unchecked Sendable {
    private let lock = NSLock()
    private var _reads = 0
    var reads: Int { lock.withLock { _reads } }

    override func coordinate(
        readingItemAt url: URL, options: NSFileCoordinator.ReadingOptions = [], error outError: NSErrorPointer,
        byAccessor reader: (URL) -> Void
    ) {
        lock.withLock { _reads += 1 }
        super.coordinate(readingItemAt: url, options: options, error: outError, byAccessor: reader)
    }
}

/// A version subclass, as a conflict resolver's tests write them.
final class LabelledVersion: NSFileVersion, @unchecked Sendable {
    override var localizedName: String? { "labelled " + (super.localizedName ?? "") }
}

/// Issue 30, items 4, 5 and 7: `NSFileVersion`'s details, Apple's errors and Apple's class surface. Each test
/// fails on the code before the issue (most did not compile: the members were missing or the classes final).
@Suite("Apple's NSFileVersion details, errors and classes", .serialized)
struct AppleSurfaceTests {
    private func withSandbox(_ body: (URL) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("quire-surface-\(UUID().uuidString)")
        let items = root.appendingPathComponent("items")
        try FileManager.default.createDirectory(at: items, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try FileVersionStore.$current.withValue(FileVersionStore(directory: root.appendingPathComponent("store"))) {
            try body(items)
        }
    }

    @Test("a stored version's url keeps the item's extension; replaceItem applies it and returns the URL written")
    func extensions() throws {
        try withSandbox { items in
            let item = items.appendingPathComponent("notes.txt")
            try Data("v1".utf8).write(to: item)
            let version = try NSFileVersion.addOfItem(at: item, withContentsOf: item)
            let id = try #require(version.persistentIdentifier as? NSString) as String
            #expect(version.url.lastPathComponent == id + ".txt")
            #expect(try Data(contentsOf: version.url) == Data("v1".utf8))

            let other = items.appendingPathComponent("draft.md")
            try Data("markdown".utf8).write(to: other)
            let written = try version.replaceItem(at: other, options: [])
            #expect(written.lastPathComponent == "draft.txt")
            #expect(try Data(contentsOf: written) == Data("v1".utf8))
            #expect(!FileManager.default.fileExists(atPath: other.path))
            try version.replaceItem(at: item)  // @discardableResult: the build has no warning here
            #expect(try Data(contentsOf: item) == Data("v1".utf8))
        }
    }

    @Test("the current version's identifier follows the contents; lookups by persistent identifier")
    func identifiers() throws {
        try withSandbox { items in
            let item = items.appendingPathComponent("doc.txt")
            try Data("one".utf8).write(to: item)
            let before = try #require(NSFileVersion.currentVersionOfItem(at: item))
            let stored = try NSFileVersion.addOfItem(at: item, withContentsOf: item)
            try Data("two, longer".utf8).write(to: item)
            let after = try #require(NSFileVersion.currentVersionOfItem(at: item))
            #expect(before != after)
            #expect(before.persistentIdentifier as? NSString != after.persistentIdentifier as? NSString)
            #expect(NSFileVersion.currentVersionOfItem(at: item) == after)

            #expect(NSFileVersion.version(itemAt: item, forPersistentIdentifier: stored.persistentIdentifier) == stored)
            #expect(NSFileVersion.version(itemAt: item, forPersistentIdentifier: after.persistentIdentifier) == after)
            #expect(NSFileVersion.version(itemAt: item, forPersistentIdentifier: before.persistentIdentifier) == nil)
            #expect(NSFileVersion.version(itemAt: item, forPersistentIdentifier: UUID().uuidString) == nil)
        }
    }

    @Test("removing the current version, or a removed one, throws a Cocoa error with Quire's as the cause")
    func cocoaErrors() throws {
        try withSandbox { items in
            let item = items.appendingPathComponent("doc.txt")
            try Data("x".utf8).write(to: item)
            let current = try #require(NSFileVersion.currentVersionOfItem(at: item))
            let error = try #require(throws: (any Error).self) { try current.remove() } as NSError
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSFileWriteNoPermissionError)
            #expect(error.userInfo[NSUnderlyingErrorKey] is FileVersionError)
            #expect(error.localizedDescription.contains("doc.txt"))

            let stored = try NSFileVersion.addOfItem(at: item, withContentsOf: item)
            try stored.remove()
            let again = try #require(throws: (any Error).self) { try stored.remove() } as NSError
            #expect(again.domain == NSCocoaErrorDomain && again.code == NSFileNoSuchFileError)
            let missing = try #require(throws: (any Error).self) {
                try NSFileVersion.addOfItem(at: items.appendingPathComponent("none.txt"), withContentsOf: item)
            } as NSError
            #expect(missing.domain == NSCocoaErrorDomain && missing.code == NSFileReadNoSuchFileError)
        }
    }

    @Test("nonlocal versions are none, and there is no originator (no iCloud)")
    func iCloudMembers() async throws {
        let item = FileManager.default.temporaryDirectory.appendingPathComponent("quire-nonlocal-\(UUID()).txt")
        try Data("x".utf8).write(to: item)
        defer { try? FileManager.default.removeItem(at: item) }
        #expect(try await NSFileVersion.nonlocalVersionsOfItem(at: item).isEmpty)
        let listed: [NSFileVersion]? = await withCheckedContinuation { continuation in
            NSFileVersion.getNonlocalVersionsOfItem(at: item) { versions, _ in
                continuation.resume(returning: versions)
            }
        }
        #expect(listed?.isEmpty == true)
        #expect(NSFileVersion.currentVersionOfItem(at: item)?.originatorNameComponents == nil)
    }

    @Test(".forUploading of a missing item is NSFileReadNoSuchFileError (260) with a description")
    func uploadingMissingItem() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("quire-missing-\(UUID()).txt")
        var error: NSError?
        var ran = false
        NSFileCoordinator().coordinate(readingItemAt: missing, options: .forUploading, error: &error) { _ in
            ran = true
        }
        #expect(!ran)
        #expect(error?.domain == NSCocoaErrorDomain && error?.code == NSFileReadNoSuchFileError)
        #expect(error?.localizedDescription.contains(missing.lastPathComponent) == true)
    }

    @Test("Quire's errors bridge to NSError with their description")
    func bridgedDescriptions() throws {
        let error = FileCoordinationError.notAFileURL(URL(string: "https://example.com/x")!) as NSError
        #expect(error.localizedDescription.contains("is not a file URL"))
    }

    @Test("a write nested in another coordinator's write accessor of an unrelated file runs; nesting stays refused")
    func nesting() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-nesting-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outer = folder.appendingPathComponent("outer.txt")
        let unrelated = folder.appendingPathComponent("unrelated.txt")
        var outerError: NSError?
        var innerError: NSError?
        var sameItemError: NSError?
        var sameCoordinatorError: NSError?
        var innerRan = false
        let coordinator = NSFileCoordinator()
        coordinator.coordinate(writingItemAt: outer, options: [], error: &outerError) { _ in
            NSFileCoordinator().coordinate(writingItemAt: unrelated, options: [], error: &innerError) { url in
                innerRan = FileManager.default.createFile(atPath: url.path, contents: Data("in".utf8))
            }
            NSFileCoordinator().coordinate(writingItemAt: outer, options: [], error: &sameItemError) { _ in }
            coordinator.coordinate(writingItemAt: unrelated, options: [], error: &sameCoordinatorError) { _ in }
        }
        #expect(outerError == nil && innerError == nil && innerRan)
        #expect(sameItemError != nil && sameCoordinatorError != nil)
    }

    @Test("NSFileCoordinator and NSFileVersion are open classes; NSFileAccessIntent is an NSObject")
    func classes() throws {
        try withSandbox { items in
            let item = items.appendingPathComponent("doc.txt")
            try Data("x".utf8).write(to: item)
            let coordinator = CountingCoordinator(filePresenter: nil)
            var error: NSError?
            coordinator.coordinate(readingItemAt: item, options: [], error: &error) { _ in }
            #expect(coordinator.reads == 1 && error == nil)

            let version = LabelledVersion(try #require(try FileVersion.current(ofItemAt: item)))
            #expect(version.localizedName == "labelled doc.txt")

            let intent: NSObject = NSFileAccessIntent.readingIntent(with: item, options: [])
            #expect((intent as? NSFileAccessIntent)?.url == item)
        }
    }
}
