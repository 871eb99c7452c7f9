import Foundation
import Logging
import StoreCore
import Testing

/// The store's domain core on its own: a ``DocumentLibrary`` over a SQLite catalog, driven without HTTP (this file
/// imports no HTTP module), whose refusals are ``StoreError`` values.
@Suite("Store core without HTTP")
struct StoreCoreTests {
    /// A library over a fresh store directory with a root for registered files.
    struct Store {
        let directory: TemporaryDirectory
        let root: URL
        let library: DocumentLibrary

        init() throws {
            directory = try TemporaryDirectory()
            let base = directory.url.resolvingSymlinksInPath()
            root = base.appendingPathComponent("root", isDirectory: true)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let configuration = StoreConfiguration(
                storeDirectory: base.appendingPathComponent("store"), port: 0, roots: [root])
            var logger = Logger(label: "quire.test")
            logger.logLevel = .critical
            library = try DocumentLibrary(
                catalog: try Catalog(storeDirectory: configuration.storeDirectory), configuration: configuration,
                metrics: StoreMetrics(), logger: logger)
        }

        /// Uploads a fixture as the HTTP layer does: its bytes written into the incoming directory first.
        func upload(_ fixture: String) async throws -> (id: DocumentID, tag: EntityTag) {
            let file = library.incomingDirectory.appendingPathComponent(UUID().uuidString)
            try Fixture.data(fixture).write(to: file)
            let (info, tag) = try await library.upload(fileAt: file, password: nil)
            return (info.id, tag)
        }

        func close() async {
            await library.shutdown()
            directory.remove()
        }
    }

    /// Runs `body` with a fresh store, then shuts its library down and removes its directory (also when `body`
    /// throws).
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

    /// Runs `body` and returns the ``StoreError`` it threw (failing the test for any other outcome).
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

    @Test("a write that names no version, or a stale one, is refused with a domain error and changes nothing")
    func writePreconditions() async throws {
        try await Self.withStore { store in
            let (id, tag) = try await store.upload("one-page.pdf")
            let stale = EntityTag(content: Data("an older version".utf8))
            #expect(
                await Self.storeError { try await store.library.delete(id, precondition: .none) }
                    == .preconditionRequired)
            #expect(
                await Self.storeError { try await store.library.delete(id, precondition: .matching(stale)) }
                    == .preconditionFailed(current: tag))
            #expect(
                await Self.storeError { _ = try await store.library.save(id, precondition: .none, password: nil) }
                    == .preconditionRequired)
            var patch = DocumentLibrary.MetadataPatch()
            patch.title = "Renamed"
            let edit = await Self.storeError {
                _ = try await store.library.updateMetadata(id, patch, precondition: .matching(stale), password: nil)
            }
            #expect(edit == .preconditionFailed(current: tag))
            #expect(try await store.library.info(id, password: nil).0.metadata.title != "Renamed")
            // An edit may name no version at all; a deletion that names the current one goes ahead.
            _ = try await store.library.updateMetadata(id, patch, precondition: .none, password: nil)
            let (_, current) = try await store.library.info(id, password: nil)
            try await store.library.delete(id, precondition: .matching(current))
            #expect(
                await Self.storeError { _ = try await store.library.info(id, password: nil) }
                    == .documentNotFound(id))
        }
    }

    @Test("reading a page the document does not have, or an unknown document, is a domain error")
    func readingErrors() async throws {
        try await Self.withStore { store in
            let (id, _) = try await store.upload("one-page.pdf")
            #expect(
                await Self.storeError { _ = try await store.library.pageText(id, page: 9, password: nil) }
                    == .pageOutOfRange(9, pageCount: 1))
            let unknown = try #require(DocumentID(rawValue: "no-such-document"))
            #expect(
                await Self.storeError { _ = try await store.library.versions(unknown, password: nil) }
                    == .documentNotFound(unknown))
            #expect(
                await Self.storeError { _ = try await store.library.register([], password: nil) }
                    == .invalidParameter("files", reason: "files must list at least one path"))
            let outside = await Self.storeError { _ = try await store.library.register(["/etc/hosts"], password: nil) }
            #expect(outside == .pathOutsideRoots("/etc/hosts"))
        }
    }

    @Test("bytes that are not a PDF are refused as damaged, with what was uploaded named")
    func damagedUpload() async throws {
        let store = try Store()
        let error = await Self.storeError { _ = try await store.upload("not-a-pdf.pdf") }
        await store.close()
        guard case .damagedPDF(let what, _) = error?.reason else {
            Issue.record("expected damagedPDF, got \(String(describing: error))")
            return
        }
        #expect(what == "the uploaded PDF")
        #expect(error?.retryAfter == nil)
    }

    @Test(
        "a write precondition holds as If-Match and If-None-Match do",
        arguments: [
            (WritePrecondition.none, false, true),
            (WritePrecondition(ifMatch: .anyRepresentation), true, true),
            (WritePrecondition(ifMatch: .tags([EntityTag(opaqueTag: "v1")!])), true, true),
            (WritePrecondition(ifMatch: .tags([EntityTag(opaqueTag: "v1", isWeak: true)!])), true, false),
            (WritePrecondition(ifMatch: .tags([EntityTag(opaqueTag: "v2")!])), true, false),
            (
                WritePrecondition(ifMatch: .anyRepresentation, ifNoneMatch: .tags([EntityTag(opaqueTag: "v1")!])), true,
                false
            ),
            (WritePrecondition(ifNoneMatch: .anyRepresentation), false, false),
        ])
    func preconditionTable(_ precondition: WritePrecondition, namesVersion: Bool, holds: Bool) {
        let current = EntityTag(opaqueTag: "v1")!
        #expect(precondition.holds(current: current) == holds)
        let required = Result { () throws(StoreError) in try precondition.require(current: current) }
        switch (namesVersion, holds) {
        case (false, _): #expect(throws: StoreError.preconditionRequired) { try required.get() }
        case (true, false): #expect(throws: StoreError.preconditionFailed(current: current)) { try required.get() }
        case (true, true): #expect(throws: Never.self) { try required.get() }
        }
        // An edit checks a precondition that names a version as a write does, and goes ahead without one.
        let checked = Result { () throws(StoreError) in try precondition.check(current: current) }
        if namesVersion {
            #expect(checked.map { true } == required.map { true })
        } else {
            #expect(checked.map { true } == .success(true))
        }
    }
}
