import DocumentStore
import FileCoordination
import Foundation
import Testing

/// The documents that are not open cost nothing per document: their directories are watched, the catalog's file
/// index finds the document of a changed file.
@Suite("Dormant documents")
struct DormantDocumentsTests {
    /// Starts a library over a catalog of `count` registered documents spread over three directories of the root,
    /// and returns how many presenters it registered.
    static func presentersAfterStart(documents count: Int) async throws -> (presenters: Int, directories: [String]) {
        let service = try DocumentService(maxOpenDocuments: 4)
        let directories = try (0..<3).map { index -> URL in
            let url = service.root.appendingPathComponent("shelf-\(index)", isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
        let created = Date(timeIntervalSince1970: 1_790_000_000)
        for index in 0..<count {
            let path = directories[index % 3].appendingPathComponent("d\(index).pdf").path
            try await service.catalog.insert(
                DocumentRecord(
                    id: DocumentID(rawValue: "d\(index)")!, files: [path], origin: .registered, pageCount: 1, size: 1,
                    etag: EntityTag(opaqueTag: "aa")!, createdAt: created, updatedAt: created))
        }
        let before = FileCoordinator.filePresenters.count
        await service.library.start()
        let after = FileCoordinator.filePresenters.count
        let watched = service.library.watchedDirectories
        await service.library.shutdown()
        service.directory.remove()
        return (after - before, watched)
    }

    @Test("a store of 3,000 documents registers as many presenters at start as one of 30: one per directory")
    func presentersDoNotGrowWithDocuments() async throws {
        let small = try await Self.presentersAfterStart(documents: 30)
        let large = try await Self.presentersAfterStart(documents: 3_000)
        #expect(small.presenters == 4)  // files/ and the three shelves
        #expect(large.presenters == small.presenters)
        #expect(large.directories.count == 4)
    }
}
