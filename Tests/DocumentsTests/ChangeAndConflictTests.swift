import Documents
import FileCoordination
import Foundation
import Testing

/// apple-and-nutrient-api.md §7 items 29, 31 and 33: notifications, conflicts, one provider reloading.
@Suite("Document: underlying-file changes and conflicts")
struct ChangeAndConflictTests {
    /// A document on a copy of `fixture`, its presenters observed.
    final class Opened {
        let folder: Folder
        let url: URL
        let document: Document
        let recorder: NotificationRecorder

        init(_ fixture: String = "one-page.pdf", label: String = #function) throws {
            folder = try Folder(label)
            url = try folder.copy(fixture)
            document = Document(url: url)
            recorder = NotificationRecorder(document)
            try observe(document.filePresenters)
        }

        var provider: any CoordinatedFileDataProviding {
            document.dataProviders[0] as! any CoordinatedFileDataProviding
        }

        deinit {
            FilePresenterCoordinator.shared.unobserve(document.filePresenters)
            folder.remove()
        }
    }

    @Test("An external change is posted asynchronously with the document, URL and provider; a clean document reloads")
    func changePostedAndCleanReload() async throws {
        try await offPool {
            let opened = try Opened()
            #expect(opened.document.pageCount == 1)
            try coordinatedReplace(opened.url, with: Fixture.data("mixed-sizes.pdf"))
            #expect(opened.recorder.posted.wait(for: 1))
            #expect(opened.recorder.posted.stays(atMost: 1))
            let posted = try #require(opened.recorder.posted.all.first)
            #expect(posted.url == opened.url)
            #expect(posted.provider === opened.provider)
            #expect(posted.isDeletion == false)
            #expect(!posted.onPostingThread)
            #expect(opened.document.pageCount == 4)
            #expect(opened.document.conflict == nil)
            #expect(!opened.document.hasUnsavedChanges)
        }
    }

    @Test("The document's own save posts nothing to it, while a second document on the same file is told")
    func ownSaveIsSilent() async throws {
        try await offPool {
            let opened = try Opened()
            let second = Document(url: opened.url)
            let secondRecorder = NotificationRecorder(second)
            try observe(second.filePresenters)
            defer { FilePresenterCoordinator.shared.unobserve(second.filePresenters) }

            try opened.document.setMetadata(DocumentMetadata(title: "saved by the first"))
            try opened.document.save()
            #expect(secondRecorder.posted.wait(for: 1))
            #expect(secondRecorder.posted.stays(atMost: 1))
            #expect(opened.recorder.posted.stays(atMost: 0))
            #expect(second.metadata.title == "saved by the first")
        }
    }

    @Test("underlyingFileChanges streams the same events to every listener")
    func asyncStream() async throws {
        let opened = try Opened()
        let first = opened.document.underlyingFileChanges
        let second = opened.document.underlyingFileChanges
        try coordinatedReplace(opened.url, with: Fixture.data("metadata.pdf"))
        for stream in [first, second] {
            let change = try await firstElement(of: stream)
            #expect(change?.fileURL == opened.url)
            #expect(change?.isDeletion == false)
            #expect(change?.dataProvider === opened.provider)
        }
    }

    @Test("A change while dirty is a .modification conflict; .reload drops the local edits")
    func modificationReload() async throws {
        try await offPool {
            let opened = try Opened()
            try opened.document.setMetadata(DocumentMetadata(title: "local"))
            try coordinatedReplace(opened.url, with: Fixture.data("mixed-sizes.pdf"))
            #expect(opened.recorder.posted.wait(for: 1))
            #expect(opened.document.conflict?.type == .modification)
            #expect(opened.document.pageCount == 1)  // not reloaded: the local state is kept until resolved
            #expect(throws: DocumentError.self) { try opened.document.save() }
            try opened.document.resolveFileConflict(for: opened.provider, with: .reload)
            #expect(opened.document.conflict == nil)
            #expect(!opened.document.hasUnsavedChanges)
            #expect(opened.document.pageCount == 4)
        }
    }

    @Test("A .modification conflict resolved with .save overwrites the other change; the document is not told of it")
    func modificationSave() async throws {
        try await offPool {
            let opened = try Opened()
            try opened.document.setMetadata(DocumentMetadata(title: "local wins"))
            try coordinatedReplace(opened.url, with: Fixture.data("mixed-sizes.pdf"))
            #expect(opened.recorder.posted.wait(for: 1))
            try opened.document.resolveFileConflict(for: opened.provider, with: .save)
            #expect(opened.document.conflict == nil)
            #expect(!opened.document.hasUnsavedChanges)
            let onDisk = Document(url: opened.url, fileCoordinationEnabled: false)
            #expect(onDisk.metadata.title == "local wins")
            #expect(onDisk.pageCount == 1)
            #expect(opened.recorder.posted.stays(atMost: 1))
        }
    }

    @Test(".close closes the document: calls throw, streams finish, presenters are unobserved")
    func closeResolution() async throws {
        let opened = try Opened()
        let stream = opened.document.underlyingFileChanges
        try opened.document.setMetadata(DocumentMetadata(title: "local"))
        try coordinatedReplace(opened.url, with: Fixture.data("mixed-sizes.pdf"))
        #expect(opened.recorder.posted.wait(for: 1))
        try opened.document.resolveFileConflict(for: opened.provider, with: .close)
        #expect(opened.document.isClosed)
        #expect(throws: DocumentError.self) { try opened.document.text(ofPageAt: 0) }
        #expect(throws: DocumentError.self) { try opened.document.save() }
        #expect(!FileCoordinator.filePresenters.contains { $0 === opened.provider })
        var received = 0
        for await _ in stream { received += 1 }  // finishes (after the change posted before the close)
        #expect(received <= 1)
    }

    @Test("A deletion is a .deletion conflict (deleter not held up); save without resolution fails; .save restores")
    func deletionAndRestore() async throws {
        try await offPool {
            let opened = try Opened()
            try opened.document.setMetadata(DocumentMetadata(title: "kept in memory"))
            let started = Date()
            try boundedCoordinator().coordinate(writingItemAt: opened.url, options: .forDeleting) { url in
                try FileManager.default.removeItem(at: url)
            }
            #expect(Date().timeIntervalSince(started) < 5)
            #expect(opened.recorder.posted.wait(for: 1))
            #expect(opened.recorder.posted.all.first?.isDeletion == true)
            #expect(opened.document.conflict?.type == .deletion)
            #expect(opened.provider.isConflictResolutionAvailable)
            #expect { try opened.document.save() } throws: { error in
                guard case .unresolvedConflict(.deletion, let source) = error as? DocumentError else { return false }
                return source == opened.url.path
            }
            #expect(throws: DocumentError.self) {
                try opened.document.resolveFileConflict(for: opened.provider, with: .reload)
            }
            #expect(opened.document.conflict?.type == .deletion)
            try opened.document.resolveFileConflict(for: opened.provider, with: .save)
            #expect(opened.document.conflict == nil)
            #expect(Document(url: opened.url, fileCoordinationEnabled: false).metadata.title == "kept in memory")
        }
    }

    @Test("A clean document whose file is deleted also gets a .deletion conflict")
    func cleanDeletion() async throws {
        try await offPool {
            let opened = try Opened()
            try FileManager.default.removeItem(at: opened.url)  // without coordination: inotify reports it
            #expect(opened.recorder.posted.wait(for: 1))
            #expect(opened.recorder.posted.all.first?.isDeletion == true)
            #expect(opened.document.conflict?.type == .deletion)
            #expect(opened.document.pageCount == 1)  // the bytes are still in memory
        }
    }

    @Test("Three providers: replacing the middle file reloads only that provider, and page mapping follows")
    func middleProviderReload() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let urls = try ["one-page.pdf", "metadata.pdf", "page-labels.pdf"].map { try folder.copy($0) }
            let providers = urls.map { CountingProvider(fileURL: $0) }
            let document = Document(dataProviders: providers)
            let recorder = NotificationRecorder(document)
            try observe(document.filePresenters)
            defer { FilePresenterCoordinator.shared.unobserve(document.filePresenters) }
            #expect(document.pageCount == 1 + 2 + 6)
            let firstText = try document.text(ofPageAt: 0)
            let lastText = try document.text(ofPageAt: 8)
            #expect(providers.map(\.reads.value) == [1, 1, 1])

            try coordinatedReplace(urls[1], with: Fixture.data("mixed-sizes.pdf"))
            #expect(recorder.posted.wait(for: 1))
            #expect(recorder.posted.stays(atMost: 1))
            #expect(recorder.posted.all.first?.provider === providers[1])
            #expect(document.pageCount == 1 + 4 + 6)
            #expect(document.pageOffset(for: providers[2]) == 5)
            #expect(try document.text(ofPageAt: 0) == firstText)
            #expect(try document.text(ofPageAt: 10) == lastText)
            #expect(try document.text(ofPageAt: 2).contains("landscape"))
            #expect(providers.map(\.reads.value) == [1, 2, 1])
        }
    }
}

/// A coordinated provider that counts whole reads (a subclass overriding an `open` member).
final class CountingProvider: CoordinatedFileDataProvider, @unchecked Sendable {
    let reads = Locked(0)

    override func data() throws -> Data {
        reads.withLock { $0 += 1 }
        return try super.data()
    }
}

/// The first element of `stream`, or nil after ``Bound/positive`` seconds.
func firstElement<Element: Sendable>(of stream: AsyncStream<Element>) async throws -> Element? {
    try await withThrowingTaskGroup(of: Element?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try await Task.sleep(for: .seconds(Bound.positive))
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
