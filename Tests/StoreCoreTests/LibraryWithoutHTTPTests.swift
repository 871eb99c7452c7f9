import DocumentModel
import Foundation
import Logging
import QuireTestSupport
import StoreCore
import Testing

/// The document library driven from StoreCore alone: this target links no HTTP module (no DocumentStore, no
/// Hummingbird), so everything here goes through the library's domain values and errors.
@Suite("Document library without HTTP")
struct LibraryWithoutHTTPTests {
    /// A library over a fresh SQLite catalog in a temporary directory.
    struct Store {
        let directory: URL
        let library: DocumentLibrary
        let catalog: Catalog

        init() throws {
            directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("quire-core-tests-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let configuration = StoreConfiguration(
                storeDirectory: directory.appendingPathComponent("store"), port: 0)
            var logger = Logger(label: "quire.test")
            logger.logLevel = .critical
            catalog = try Catalog(storeDirectory: configuration.storeDirectory)
            library = try DocumentLibrary(
                catalog: catalog, configuration: configuration,
                metrics: StoreMetrics(), logger: logger)
        }

        /// Creates a document from PDF bytes: written into the library's incoming directory, then taken in.
        func create(_ bytes: Data) async throws -> (DocumentInfo, EntityTag) {
            let file = library.incomingDirectory.appendingPathComponent(UUID().uuidString)
            try bytes.write(to: file)
            return try await library.upload(fileAt: file, password: nil)
        }

        func close() async {
            await library.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Runs `body` with a fresh store, which is shut down and removed afterwards (also when `body` throws).
    static func withStore(_ body: (Store) async throws -> Void) async throws {
        let store = try Store()
        do {
            try await body(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// The ``StoreError`` `body` throws; records an issue for any other outcome.
    static func storeError(_ body: () async throws -> Void) async -> StoreError? {
        do {
            try await body()
            Issue.record("expected a StoreError; the operation succeeded")
        } catch let error as StoreError {
            return error
        } catch {
            Issue.record("expected a StoreError, got \(type(of: error)): \(error)")
        }
        return nil
    }

    @Test("a document made from PDF bytes is read back as a domain value, with its content")
    func createAndRead() async throws {
        try await Self.withStore { store in
            let bytes = TextPDF.make(["first page", "second page"], title: "Core")
            let (created, tag) = try await store.create(bytes)
            #expect(created.validator == tag)
            #expect(created.version == 1)
            #expect(created.contentTag == EntityTag(content: bytes))
            #expect(tag == EntityTag(content: EntityTag(content: bytes), version: 1))
            #expect(created.origin == .upload)
            #expect(created.state == .clean)
            #expect(created.conflict == nil && created.damage == nil && !created.isEncrypted)
            #expect(created.pageCount == 2)
            #expect(created.pages.map(\.number) == [1, 2])
            #expect(created.pages.allSatisfy { $0.width == 612 && $0.height == 792 })
            #expect(created.metadata.title == "Core")
            #expect(created.size == bytes.count)
            #expect(created.files.count == 1)
            #expect(created.files.first?.tag == EntityTag(content: bytes))
            #expect(created.files.first?.size == bytes.count)

            let (read, readTag) = try await store.library.info(created.id, password: nil)
            #expect(read == created)
            #expect(readTag == tag)
            let (content, contentTag) = try await store.library.content(created.id, password: nil)
            #expect(content == bytes)
            #expect(contentTag == created.contentTag)
            // A rendering is made once per version and kept with the info: the second caller gets the first's.
            let renders = RenderCount()
            let (first, _) = try await store.library.info(created.id, password: nil) { info in
                renders.add()
                return "version \(info.version)"
            }
            let (second, _) = try await store.library.info(created.id, password: nil) { info in
                renders.add()
                return "version \(info.version)"
            }
            #expect(first == "version 1" && second == "version 1")
            #expect(renders.count == 1)
            let report = try await store.library.conflictReport(created.id, password: nil)
            #expect(report == ConflictReport(document: created.id, state: .clean, conflict: nil))
            #expect(try await store.library.versions(created.id, password: nil).isEmpty)
        }
    }

    @Test("a change that names the current version goes ahead; one that names an older version is refused")
    func changeWithExpectedVersion() async throws {
        try await Self.withStore { store in
            let (created, tag) = try await store.create(TextPDF.make(["page"], title: "Before"))
            var patch = DocumentLibrary.MetadataPatch()
            patch.title = "After"
            let (changed, changedTag) = try await store.library.updateMetadata(
                created.id, patch, precondition: .matching(tag), password: nil)
            #expect(changed.metadata.title == "After")
            #expect(changed.state == .dirty)
            #expect(changed.version == created.version + 1)
            #expect(changed.validator == changedTag)
            #expect(changedTag != tag)
            #expect(changedTag.documentVersion == changed.version)

            // The version read before the change is stale now: an edit and a deletion naming it are refused,
            // with the current version named, and change nothing.
            var again = DocumentLibrary.MetadataPatch()
            again.title = "Lost"
            let staleEdit = await Self.storeError {
                _ = try await store.library.updateMetadata(
                    created.id, again, precondition: .matching(tag), password: nil)
            }
            #expect(staleEdit == .preconditionFailed(current: changedTag))
            let staleDelete = await Self.storeError {
                try await store.library.delete(created.id, precondition: .matching(tag))
            }
            #expect(staleDelete == .preconditionFailed(current: changedTag))
            #expect(
                await Self.storeError { try await store.library.delete(created.id, precondition: .none) }
                    == .preconditionRequired)
            let (current, currentTag) = try await store.library.info(created.id, password: nil)
            #expect(current.metadata.title == "After")
            #expect(currentTag == changedTag)
            // A version condition that excludes the current version refuses as well.
            let excluded = WritePrecondition(ifMatch: .anyRepresentation, ifNoneMatch: .tags([changedTag]))
            #expect(
                await Self.storeError { try await store.library.delete(created.id, precondition: excluded) }
                    == .preconditionFailed(current: changedTag))

            try await store.library.delete(created.id, precondition: .matching(changedTag))
            #expect(
                await Self.storeError { _ = try await store.library.info(created.id, password: nil) }
                    == .documentNotFound(created.id))
        }
    }

    @Test("an upload, and a replace of the content, hash their bytes once (XXH64 once, SHA-256 once) and the replace reads the catalog once; the document opens from those bytes")
    func newBytesAreHashedOnce() async throws {
        try await Self.withStore { store in
            let bytes = TextPDF.make(["one", "two", "three"], title: "Once")
            var fingerprinted = ContentFingerprint.bytesHashed
            var tagged = EntityTag.bytesHashed
            let (created, tag) = try await store.create(bytes)
            #expect(ContentFingerprint.bytesHashed - fingerprinted == bytes.count)
            #expect(EntityTag.bytesHashed - tagged == bytes.count)
            #expect(created.pageCount == 3 && created.contentTag == EntityTag(content: bytes))

            let replacement = TextPDF.make(["four", "five"], title: "Twice")
            let file = store.library.incomingDirectory.appendingPathComponent(UUID().uuidString)
            try replacement.write(to: file)
            fingerprinted = ContentFingerprint.bytesHashed
            tagged = EntityTag.bytesHashed
            let reads = store.catalog.readsMade
            let (replaced, _) = try await store.library.replaceContent(
                created.id, withFileAt: file, precondition: .matching(tag), password: nil)
            #expect(ContentFingerprint.bytesHashed - fingerprinted == replacement.count)
            #expect(EntityTag.bytesHashed - tagged == replacement.count)
            #expect(store.catalog.readsMade - reads == 1)
            #expect(replaced.pageCount == 2 && replaced.metadata.title == "Twice")
            #expect(replaced.contentTag == EntityTag(content: replacement))
            let (content, _) = try await store.library.content(created.id, password: nil)
            #expect(content == replacement)
            let (text, _) = try await store.library.pageText(created.id, page: 2, password: nil)
            #expect(text.contains("five"))
        }
    }

    @Test("an upload's own file events in the watched files/ directory read nothing from the catalog")
    func uploadsAreNotLookedUp() async throws {
        try await Self.withStore { store in
            await store.library.start()  // files/ is watched for its dormant documents from here on
            for number in 1...20 {
                _ = try await store.create(TextPDF.make(["upload \(number)"], title: "Upload \(number)"))
            }
            // A file of no document: its event is looked up. Its directory's events reach the library in order,
            // so once it is counted, every upload's rename before it has been seen.
            let stranger = store.directory.appendingPathComponent("store/files/not-a-document.txt")
            try Data("hello".utf8).write(to: stranger)
            let deadline = ContinuousClock.now + .seconds(10)
            while store.library.dormantLookups < 1 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(store.library.dormantLookups == 1)
        }
    }

    @Test("the documents are listed oldest first, page by page")
    func listing() async throws {
        try await Self.withStore { store in
            var made: [DocumentID] = []
            for number in 1...3 {
                let (info, _) = try await store.create(TextPDF.make(["document \(number)"], title: "Doc \(number)"))
                made.append(info.id)
            }
            let all = try await store.library.list(DocumentListing())
            #expect(all.documents.map(\.id) == made)
            #expect(all.documents.map(\.title) == ["Doc 1", "Doc 2", "Doc 3"])
            #expect(all.documents.allSatisfy { $0.state == .clean && $0.pageCount == 1 })
            #expect(all.next == nil)

            let first = try await store.library.list(DocumentListing(limit: 2))
            #expect(first.documents.map(\.id) == Array(made.prefix(2)))
            let next = try #require(first.next)
            let second = try await store.library.list(DocumentListing(after: next, limit: 2))
            #expect(second.documents.map(\.id) == [made[2]])
            #expect(second.next == nil)
        }
    }
}

/// Counts calls from a rendering closure.
final class RenderCount: @unchecked Sendable {
    private let lock = NSLock()
    private var calls = 0

    func add() { lock.withLock { calls += 1 } }

    var count: Int { lock.withLock { calls } }
}
