import Documents
import FileCoordination
import Foundation
import Testing

@Suite("Document: pages, reading and editing")
struct DocumentTests {
    @Test("Pages of several providers are concatenated in order, with offsets and relative indexes")
    func pageMapping() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let first = CoordinatedFileDataProvider(fileURL: try folder.copy("one-page.pdf"))
            let second = MemoryDataProvider(data: try Fixture.data("mixed-sizes.pdf"))
            let third = FileDataProvider(fileURL: try folder.copy("page-labels.pdf"))
            let document = Document(dataProviders: [first, second, third])
            #expect(document.errors.isEmpty)
            #expect(document.pageCount == 1 + 4 + 6)
            #expect(document.pageOffset(for: first) == 0)
            #expect(document.pageOffset(for: second) == 1)
            #expect(document.pageOffset(for: third) == 5)
            #expect(document.pageOffset(for: MemoryDataProvider(data: Data())) == nil)
            #expect(document.dataProvider(forPageAt: 0) === first)
            #expect(document.dataProvider(forPageAt: 4) === second)
            #expect(document.dataProvider(forPageAt: 5) === third)
            #expect(document.dataProvider(forPageAt: 11) == nil)
            #expect(document.relativePageIndex(forPageAt: 2) == 1)
            #expect(document.relativePageIndex(forPageAt: 10) == 5)
            #expect(document.relativePageIndex(forPageAt: -1) == -1)

            let landscape = try document.pageInfo(at: 2)
            #expect(landscape.size == CGSize(width: 792, height: 612))
            #expect(landscape.relativeIndex == 1)
            #expect(landscape.dataProvider === second)
            #expect(try document.text(ofPageAt: 0).contains("Hello from page one."))
            #expect(try document.text(ofPageAt: 2).contains("Page 2: US Letter landscape"))
            #expect(document.filePresenters.count == 1)
            #expect(document.filePresenters.first === first)
            #expect(throws: DocumentError.self) { try document.pageInfo(at: 11) }
            #expect(throws: DocumentError.self) { try document.text(ofPageAt: -1) }
        }
    }

    @Test("Labels, find and rendering address the right provider's page")
    func labelsFindRender() async throws {
        try await offPool {
            let document = Document(dataProviders: [
                MemoryDataProvider(data: try Fixture.data("one-page.pdf")),
                MemoryDataProvider(data: try Fixture.data("page-labels.pdf")),
            ])
            let labels = try (1...6).map { try document.pageInfo(at: $0).label }
            let direct = try (0..<6).map { try PopplerLabels.label(ofPage: $0) }
            #expect(labels == direct)
            #expect(try document.find("quick brown fox", onPageAt: 0).count == 1)
            #expect(try document.find("quick brown fox", onPageAt: 1).isEmpty)
            let png = try document.renderPage(at: 0, dpi: 36)
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(throws: DocumentError.self) { try document.renderPage(at: 0, dpi: 100_000) }
        }
    }

    @Test("Edits make the document dirty; save writes atomically and makes it clean")
    func editAndSave() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf")
            let document = Document(url: url)
            #expect(!document.hasUnsavedChanges)
            var metadata = document.metadata
            metadata.title = "Quarterly report"
            metadata.author = "Quire"
            try document.setMetadata(metadata)
            #expect(document.hasUnsavedChanges)
            try document.addAnnotation(
                Annotation(kind: .note, rect: CGRect(x: 72, y: 700, width: 20, height: 20), contents: "Check this"),
                toPageAt: 0)
            try document.save()
            #expect(!document.hasUnsavedChanges)
            let reopened = Document(url: url, fileCoordinationEnabled: false)
            #expect(reopened.metadata.title == "Quarterly report")
            #expect(reopened.metadata.author == "Quire")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.root.path)
            #expect(leftovers == ["one-page.pdf"])
            #expect(throws: DocumentError.self) {
                try document.addAnnotation(
                    Annotation(kind: .highlight, rect: CGRect(x: 0, y: 0, width: 10, height: 10), contents: ""),
                    toPageAt: 9)
            }
        }
    }

    @Test("A provider that is missing, a directory or not a PDF gives an error naming it; the others work")
    func badProviders() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let missing = CoordinatedFileDataProvider(fileURL: folder.url("missing.pdf"))
            let directory = FileDataProvider(fileURL: folder.root)
            let notPDF = FileDataProvider(fileURL: try folder.copy("not-a-pdf.pdf"))
            let good = FileDataProvider(fileURL: try folder.copy("mixed-sizes.pdf"))
            let document = Document(dataProviders: [missing, directory, good, notPDF])
            #expect(document.pageCount == 4)
            #expect(document.pageOffset(for: good) == 0)
            #expect(try document.text(ofPageAt: 1).contains("landscape"))
            #expect(document.errors.count == 3)
            guard case .fileNotFound(let source) = document.error(for: missing) else {
                Issue.record("expected fileNotFound, got \(String(describing: document.error(for: missing)))")
                return
            }
            #expect(source.hasSuffix("missing.pdf"))
            #expect(document.error(for: directory)?.description.contains(folder.root.path) == true)
            guard case .pdf(let name, .damaged) = document.error(for: notPDF) else {
                Issue.record("expected a damaged PDF, got \(String(describing: document.error(for: notPDF)))")
                return
            }
            #expect(name.hasSuffix("not-a-pdf.pdf"))
            #expect(document.error(for: good) == nil)
            // Editing the metadata of a document whose first provider failed names that provider.
            #expect { try document.setMetadata(DocumentMetadata(title: "x")) } throws: { error in
                (error as? DocumentError)?.description.contains("missing.pdf") == true
            }
        }
    }

    @Test("An encrypted provider opens after unlock(withPassword:)")
    func encrypted() async throws {
        try await offPool {
            let document = Document(dataProviders: [MemoryDataProvider(data: try Fixture.data("encrypted-aes256.pdf"))])
            #expect(document.pageCount == 0)
            #expect(document.isEncrypted)
            #expect(!document.unlock(withPassword: "wrong"))
            #expect(document.unlock(withPassword: "userpw"))
            #expect(document.pageCount > 0)
        }
    }

    @Test("Without file coordination: a plain file provider, no presenters, no notifications")
    func coordinationDisabled() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf")
            let document = Document(url: url, fileCoordinationEnabled: false)
            #expect(document.dataProviders.count == 1)
            #expect(document.dataProviders.first is FileDataProvider)
            #expect(!(document.dataProviders.first is CoordinatedFileDataProvider))
            #expect(document.filePresenters.isEmpty)
            let recorder = NotificationRecorder(document)
            FilePresenterCoordinator.shared.observe(document.filePresenters)
            try coordinatedReplace(url, with: Fixture.data("metadata.pdf"))
            #expect(recorder.posted.stays(atMost: 0))
        }
    }

    @Test("clearCache drops unsaved edits and reads the providers again")
    func clearCache() async throws {
        try await offPool {
            let document = Document(dataProviders: [MemoryDataProvider(data: try Fixture.data("one-page.pdf"))])
            try document.setMetadata(DocumentMetadata(title: "unsaved"))
            #expect(document.hasUnsavedChanges)
            document.clearCache()
            #expect(!document.hasUnsavedChanges)
            #expect(document.metadata.title != "unsaved")
            #expect(document.pageCount == 1)
        }
    }
}

/// Page labels read with poppler directly, to compare with the document's.
enum PopplerLabels {
    static func label(ofPage index: Int) throws -> String? {
        try Document(dataProviders: [MemoryDataProvider(data: try Fixture.data("page-labels.pdf"))])
            .pageInfo(at: index).label
    }
}
