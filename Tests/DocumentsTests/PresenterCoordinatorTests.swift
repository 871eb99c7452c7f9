@testable import DocumentModel
import Documents
import FileCoordination
import Foundation
import Testing

/// apple-and-nutrient-api.md §7 item 32. The coordinator is shared process-wide: these tests run one at a time.
@Suite("FilePresenterCoordinator", .serialized)
struct PresenterCoordinatorTests {
    private func isRegistered(_ presenter: any FilePresenter) -> Bool {
        FileCoordinator.filePresenters.contains { $0 === presenter }
    }

    @Test("observe registers a batch (twice is harmless); unobserve removes it")
    func observeAndUnobserve() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let document = Document(dataProviders: [
                CoordinatedFileDataProvider(fileURL: try folder.copy("one-page.pdf")),
                CoordinatedFileDataProvider(fileURL: try folder.copy("metadata.pdf")),
            ])
            let presenters = document.filePresenters
            #expect(presenters.count == 2)
            #expect(!presenters.contains(where: isRegistered))  // the document does not register itself
            FilePresenterCoordinator.shared.observe(presenters)
            FilePresenterCoordinator.shared.observe(presenters)
            #expect(presenters.allSatisfy(isRegistered))
            #expect(FileCoordinator.filePresenters.filter { $0 === presenters[0] }.count == 1)
            FilePresenterCoordinator.shared.unobserve(presenters)
            #expect(!presenters.contains(where: isRegistered))
        }
    }

    @Test("suspend unregisters, resume registers again and delivers one catch-up change per changed file")
    func suspendAndResume() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let changedURL = try folder.copy("one-page.pdf")
            let touchedURL = try folder.copy("metadata.pdf", as: "touched.pdf")
            let changed = CoordinatedFileDataProvider(fileURL: changedURL)
            let touched = CoordinatedFileDataProvider(fileURL: touchedURL)
            let document = Document(dataProviders: [changed, touched])
            let recorder = NotificationRecorder(document)
            // A coordinator of its own: suspending the shared one would take every other test's presenters out of
            // coordination while the suites run in parallel.
            let coordinator = FilePresenterCoordinator()
            coordinator.observe(document.filePresenters)
            try CoordinationService.synchronize()
            defer { coordinator.unobserve(document.filePresenters) }

            coordinator.suspend()
            #expect(coordinator.isSuspended)
            #expect(!isRegistered(changed) && !isRegistered(touched))
            try coordinatedReplace(changedURL, with: Fixture.data("mixed-sizes.pdf"))  // nobody is told now
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: touchedURL.path)
            #expect(recorder.posted.stays(atMost: 0))
            #expect(document.pageCount == 1 + 2)

            coordinator.resume()
            #expect(isRegistered(changed) && isRegistered(touched))
            #expect(recorder.posted.wait(for: 1))
            #expect(recorder.posted.stays(atMost: 1))  // the touched file's content did not change
            #expect(recorder.posted.all.first?.provider === changed)
            #expect(document.pageCount == 4 + 2)
        }
    }

    @Test("reload registers an observed presenter again after its file was deleted and created anew")
    func reloadAfterRecreate() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf")
            let document = Document(url: url)
            let recorder = NotificationRecorder(document)
            try observe(document.filePresenters)
            defer { FilePresenterCoordinator.shared.unobserve(document.filePresenters) }
            let presenter = try #require(document.filePresenters.first)

            try FileManager.default.removeItem(at: url)
            #expect(recorder.posted.wait(for: 1))
            try Fixture.data("mixed-sizes.pdf").write(to: url)
            FilePresenterCoordinator.shared.reload(presenter)
            #expect(isRegistered(presenter))
            try CoordinationService.synchronize()
            let before = recorder.posted.all.count
            try coordinatedReplace(url, with: Fixture.data("metadata.pdf"))
            #expect(recorder.posted.wait(for: before + 1))

            let stranger = CoordinatedFileDataProvider(fileURL: url)
            FilePresenterCoordinator.shared.reload(stranger)  // not observed: nothing happens
            #expect(!isRegistered(stranger))
        }
    }
}
