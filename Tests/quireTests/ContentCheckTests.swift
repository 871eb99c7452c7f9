import Foundation
import QuireTestSupport
import StoreClient
import Testing

/// The periodic content check (`--content-check-seconds`): what a node's watchers never report (another host's
/// write on a network file system) is found by reading the files. Here the watchers are made deaf by a debounce
/// of ten minutes, so that only the check can report within the test.
@Suite("Periodic content check")
struct ContentCheckTests {
    static let deaf = ["QUIRE_WATCH_DEBOUNCE_MS": "600000"]

    @Test("a file overwritten where no watcher reports it gives one changed event within the check's interval; a deleted one, one deleted event")
    func unseenChangesAreFound() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(
            sandbox: sandbox, arguments: ["--content-check-seconds", "1"], environment: Self.deaf)
        let client = try service.client()
        do {
            let changing = try sandbox.copyFixture("one-page.pdf", as: "changing.pdf")
            let vanishing = try sandbox.copyFixture("one-page.pdf", as: "vanishing.pdf")
            let changed = try await client.register(files: [changing])
            let deleted = try await client.register(files: [vanishing])
            let recorder = EventRecorder(client: client, after: 0)
            defer { recorder.cancel() }
            _ = try await recorder.waitForEvents(2)
            let replacement = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("mixed-sizes.pdf")))
            try replacement.write(to: URL(fileURLWithPath: changing))
            try FileManager.default.removeItem(atPath: vanishing)
            let events = try await recorder.waitForEvents(4, timeout: .seconds(15))
            #expect(Set(events.dropFirst(2).map { "\($0.type) \($0.document)" })
                == ["changed \(changed.id)", "deleted \(deleted.id)"], "\(events.map(\.type))")
            #expect(try await client.document(changed.id).pageCount == 4)
            // Checked again and again: nothing more is reported. A marker closes the log.
            try await Task.sleep(for: .milliseconds(2500))  // two more checks: the subject of the test
            let marker = try await client.upload(pdf: try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf"))))
            let all = try await eventually("the marker's created event") {
                recorder.events.contains { $0.document == marker.id } ? recorder.events : nil
            }
            #expect(all.count == 5, "\(all.map { "\($0.type) \($0.document)" })")
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("a file overwritten under unsaved edits, where no watcher reports it: the check puts the document in conflict")
    func unseenChangeUnderEditsIsAConflict() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(
            sandbox: sandbox, arguments: ["--content-check-seconds", "1"], environment: Self.deaf)
        let client = try service.client()
        do {
            let path = try sandbox.copyFixture("one-page.pdf", as: "edited.pdf")
            let registered = try await client.register(files: [path])
            _ = try await client.updateMetadata(of: registered.id, DocumentMetadata(title: "unsaved"))
            let recorder = EventRecorder(client: client, after: 0)
            defer { recorder.cancel() }
            _ = try await recorder.waitForEvents(1)
            let replacement = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("mixed-sizes.pdf")))
            try replacement.write(to: URL(fileURLWithPath: path))
            let events = try await recorder.waitForEvents(2, timeout: .seconds(15))
            #expect(events[1].type == .conflict, "\(events.map(\.type))")
            let info = try await client.document(registered.id)
            #expect(info.state == .conflict && info.metadata.title == "unsaved")
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("without the check (the default), deaf watchers report nothing: the check is what finds the change")
    func withoutTheCheckNothingIsFound() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox, environment: Self.deaf)
        let client = try service.client()
        do {
            let path = try sandbox.copyFixture("one-page.pdf", as: "quiet.pdf")
            let registered = try await client.register(files: [path])
            let recorder = EventRecorder(client: client, after: 0)
            defer { recorder.cancel() }
            _ = try await recorder.waitForEvents(1)
            try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("mixed-sizes.pdf")))
                .write(to: URL(fileURLWithPath: path))
            try await Task.sleep(for: .milliseconds(2500))  // as long as two checks would take above
            let marker = try await client.upload(pdf: try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf"))))
            let all = try await eventually("the marker's created event") {
                recorder.events.contains { $0.document == marker.id } ? recorder.events : nil
            }
            #expect(!all.contains { $0.document == registered.id && $0.type == .changed })
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        #expect(service.stop() == 0)
    }
}
