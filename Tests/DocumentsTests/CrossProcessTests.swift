import Documents
import FileCoordination
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A document here, other programs in other processes.
@Suite("Document across processes", .serialized)
struct CrossProcessTests {
    @Test("A coordinated write by `quire write` in another process gives exactly one notification and a reload")
    func quireWriteNotifiesOnce() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf")
            let document = Document(url: url)
            let recorder = NotificationRecorder(document)
            try observe(document.filePresenters)
            defer { FilePresenterCoordinator.shared.unobserve(document.filePresenters) }

            let writer = try ChildProcess("quire", ["write", url.path, "--from", Fixture.url("mixed-sizes.pdf").path])
            #expect(writer.waitForExit() == 0, "quire write: \(writer.output)")
            #expect(recorder.posted.wait(for: 1))
            #expect(recorder.posted.stays(atMost: 1))
            #expect(recorder.posted.all.first?.isDeletion == false)
            #expect(document.pageCount == 4)

            // …and `quire rm` (a coordinated deletion) is a deletion conflict.
            let remover = try ChildProcess("quire", ["rm", url.path])
            #expect(remover.waitForExit() == 0, "quire rm: \(remover.output)")
            #expect(recorder.posted.wait(for: 2))
            #expect(recorder.posted.all.last?.isDeletion == true)
            #expect(document.conflict?.type == .deletion)
        }
    }

    @Test("A saver SIGKILLed 50 times at random moments always leaves the old or the new complete PDF")
    func atomicSaveSurvivesKills() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf")
            let original = try Data(contentsOf: url)
            var outcomes: [String: Int] = [:]
            for round in 0..<50 {
                let saver = try ChildProcess("DocumentProbe", ["save-loop", url.path])
                #expect(saver.waitFor("saving"), "round \(round): \(saver.output)")
                usleep(UInt32.random(in: 0...30_000))  // a random moment within the save loop
                kill(saver.pid, SIGKILL)
                #expect(saver.waitForExit() != nil)
                let bytes = try Data(contentsOf: url)
                let document = Document(dataProviders: [MemoryDataProvider(data: bytes)])
                #expect(document.errors.isEmpty, "round \(round): \(document.errors)")
                #expect(document.pageCount == 1)
                let title = bytes == original ? "original" : document.metadata.title ?? "none"
                #expect(["original", "odd", "even"].contains(title), "round \(round): title \(title)")
                outcomes[title, default: 0] += 1
            }
            // The saver got far enough to write new versions (not only the original survived).
            #expect(outcomes["odd", default: 0] + outcomes["even", default: 0] > 0, "\(outcomes)")
        }
    }

    @Test("The DocumentExample (the article Documents and conflicts) prints the pages and reacts to `quire write` from another process")
    func readmeExample() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf")
            let example = try ChildProcess("DocumentExample", [url.path, "--changes", "1"])
            #expect(example.waitFor("watching \(url.path) — change it from another program"), "\(example.output)")
            #expect(example.output.contains("1 pages, title: One Page Fixture"))
            #expect(waitUntilPresenting(pid: example.pid, url))
            let writer = try ChildProcess("quire", ["write", url.path, "--from", Fixture.url("mixed-sizes.pdf").path])
            #expect(writer.waitForExit() == 0)
            #expect(example.waitForExit() == 0, "\(example.output)")
            #expect(example.output.contains("the file changed; the document reloaded it:"))
            #expect(example.output.contains { $0.hasPrefix("4 pages") })
        }
    }

    /// Waits (bounded) until the shared arbiter lists a presenter of `url` in process `pid`.
    private func waitUntilPresenting(pid: Int32, _ url: URL) -> Bool {
        let deadline = Date(timeIntervalSinceNow: Bound.positive)
        while Date() < deadline {
            if let status = try? CoordinationService.status(),
                status.presenters.contains(where: { $0.pid == pid && $0.path == url.path })
            {
                return true
            }
            usleep(10_000)
        }
        return false
    }
}
