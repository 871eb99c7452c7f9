import Documents
import FileCoordination
import Foundation
import Testing

// Fail on main: a Document's conflict resolution kept nothing of the side it dropped.
@Suite("Document: a conflict's losing side is kept as a conflict version")
struct ConflictVersionTests {
    /// A document on a copy of `one-page.pdf` with a private versions store, in a `.modification` conflict: local
    /// metadata edits, and the file replaced by `mixed-sizes.pdf` (4 pages) from outside.
    final class InConflict {
        let folder: Folder
        let url: URL
        let document: Document
        let store: FileVersionStore
        let recorder: NotificationRecorder

        init(label: String = #function) throws {
            folder = try Folder(label)
            url = try folder.copy("one-page.pdf")
            store = FileVersionStore(directory: folder.url("versions"))
            document = Document(url: url)
            document.versionStore = store
            recorder = NotificationRecorder(document)
            try observe(document.filePresenters)
            try document.setMetadata(DocumentMetadata(title: "my edits"))
            try coordinatedReplace(url, with: Fixture.data("mixed-sizes.pdf"))
            guard recorder.posted.wait(for: 1), document.conflict?.type == .modification else {
                throw ConflictNotReached()
            }
        }

        var provider: any CoordinatedFileDataProviding {
            document.dataProviders[0] as! any CoordinatedFileDataProviding
        }

        deinit {
            FilePresenterCoordinator.shared.unobserve(document.filePresenters)
            folder.remove()
        }
    }

    struct ConflictNotReached: Error {}

    @Test(".reload keeps the unsaved edits as a conflict version, and restoring it brings them back")
    func reloadKeepsEdits() async throws {
        try await offPool {
            let opened = try InConflict()
            #expect(try opened.store.versions(ofItemAt: opened.url).isEmpty)
            try opened.document.resolveFileConflict(for: opened.provider, with: .reload)
            #expect(opened.document.pageCount == 4)
            #expect(opened.document.metadata.title != "my edits")

            let kept = try opened.store.versions(ofItemAt: opened.url)
            #expect(kept.count == 1)
            let version = try #require(kept.first)
            #expect(version.isConflict && !version.isResolved)
            #expect(version.localizedName == "one-page.pdf")
            let edited = Document(dataProviders: [MemoryDataProvider(data: try Data(contentsOf: version.url))])
            #expect(edited.pageCount == 1 && edited.metadata.title == "my edits")

            // Restoring it (a coordinated write of the version's bytes) brings the edits back to the file, and the
            // document, clean, reloads them.
            let before = opened.recorder.posted.all.count
            _ = try boundedCoordinator().coordinate(writingItemAt: opened.url) { url in
                try version.replaceItem(at: url)
            }
            #expect(opened.recorder.posted.wait(for: before + 1))
            #expect(opened.document.metadata.title == "my edits")
            #expect(opened.document.pageCount == 1)
        }
    }

    @Test(".save keeps the bytes on disk it overwrites as a conflict version")
    func saveKeepsTheOverwrittenBytes() async throws {
        try await offPool {
            let opened = try InConflict()
            try opened.document.resolveFileConflict(for: opened.provider, with: .save)
            #expect(Document(url: opened.url, fileCoordinationEnabled: false).metadata.title == "my edits")

            let kept = try opened.store.versions(ofItemAt: opened.url)
            #expect(kept.count == 1 && kept.first?.isConflict == true)
            let overwritten = try Data(contentsOf: try #require(kept.first).url)
            #expect(overwritten == (try Fixture.data("mixed-sizes.pdf")))
        }
    }

    @Test("without a conflict, or without a store, nothing is kept")
    func nothingKeptWithoutConflictOrStore() async throws {
        try await offPool {
            let folder = try Folder(#function)
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf")
            let store = FileVersionStore(directory: folder.url("versions"))
            let document = Document(url: url)
            document.versionStore = store
            try document.setMetadata(DocumentMetadata(title: "no conflict"))
            try document.resolveFileConflict(
                for: document.dataProviders[0] as! any CoordinatedFileDataProviding, with: .reload)
            #expect(try store.versions(ofItemAt: url).isEmpty)

            let opened = try InConflict()
            opened.document.versionStore = nil
            try opened.document.resolveFileConflict(for: opened.provider, with: .reload)
            #expect(try opened.store.versions(ofItemAt: opened.url).isEmpty)
        }
    }

    @Test("a store that cannot be written stops the resolution: the edits stay in memory")
    func unwritableStoreStopsTheResolution() async throws {
        try await offPool {
            let opened = try InConflict()
            // A store whose directory is a regular file cannot be written.
            let blocked = opened.folder.url("blocked")
            try Data("not a directory".utf8).write(to: blocked)
            opened.document.versionStore = FileVersionStore(directory: blocked)
            #expect {
                try opened.document.resolveFileConflict(for: opened.provider, with: .reload)
            } throws: { error in
                guard case DocumentError.versionNotKept = error else { return false }
                return true
            }
            #expect(opened.document.conflict?.type == .modification)
            #expect(opened.document.metadata.title == "my edits")
        }
    }
}
