import Crypto
import Foundation
import StoreClient
import Testing

/// The end-to-end scenarios of issue 7: a real `quire serve` on a free loopback port with a private
/// coordination directory, other processes changing its files, and StoreClient's event feed watching.
@Suite("store scenarios (quire serve, end to end)")
struct StoreScenarioTests {
    @Test("upload, then read the info, a page's text, a rendered page and the content")
    func uploadAndRead() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        let uploaded = try await client.upload(pdf: bytes)
        #expect(uploaded.contentEtag == Self.entityTag(bytes))
        #expect(uploaded.origin == .upload)
        #expect(uploaded.state == .clean && uploaded.conflict == nil)
        let info = try await client.document(uploaded.id)
        #expect(info.pageCount == 1)
        #expect(info.pages.first?.width == 612 && info.pages.first?.height == 792)
        #expect(info.metadata.title == "One Page Fixture")
        #expect(info.files.count == 1 && info.files[0].size == bytes.count)
        let text = try await client.pageText(of: uploaded.id, page: 1)
        #expect(text.contains("Hello from page one."))
        let png = try await client.pageImage(of: uploaded.id, page: 1, dpi: 36)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(try await client.content(of: uploaded.id) == bytes)
        let listed = try await client.documents().collect()
        #expect(listed.map(\.id) == [uploaded.id])
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("quire write, cp, mv over the file, a move and a deletion by other processes: one event each, in order")
    func externalChanges() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let recorder = EventRecorder(client: client)
        try await recorder.waitForConnections(1)
        let file = try sandbox.copyFixture("one-page.pdf", as: "report.pdf")
        let document = try await client.register(files: [file])
        _ = try await recorder.waitForEvents(1)

        // A coordinated write by another process.
        let second = QuireProcess.fixture("libjs-pdf-helloworld.pdf")
        #expect(try sandbox.quire(["write", file, "--from", second]).status == 0)
        var events = try await recorder.waitForEvents(2)
        #expect(try events[1].type == .changed && events[1].contentEtag == Self.entityTag(of: second))

        // A plain overwrite, as cp does it (truncate and write in place).
        let third = QuireProcess.fixture("page-labels.pdf")
        #expect(try Self.run("/bin/cp", [third, file]) == 0)
        events = try await recorder.waitForEvents(3)
        #expect(try events[2].type == .changed && events[2].contentEtag == Self.entityTag(of: third))

        // An atomic replace: a new file renamed over the old one.
        let fourth = QuireProcess.fixture("annotations.pdf")
        let staged = try sandbox.copyFixture("annotations.pdf", as: ".report.tmp")
        #expect(try Self.run("/bin/mv", [staged, file]) == 0)
        events = try await recorder.waitForEvents(4)
        #expect(try events[3].type == .changed && events[3].contentEtag == Self.entityTag(of: fourth))
        let afterReplace = try await client.document(document.id)
        #expect(afterReplace.state == .clean && afterReplace.pageCount == 2)

        // A move of the file: the document follows it.
        let moved = sandbox.path("moved.pdf")
        #expect(try sandbox.quire(["mv", file, moved]).status == 0)
        events = try await recorder.waitForEvents(5)
        #expect(events[4].type == .moved)
        #expect(events[4].from == Self.resolved(file) && events[4].to == Self.resolved(moved))
        #expect(try await client.document(document.id).files.map(\.path) == [Self.resolved(moved)])

        // A deletion.
        #expect(try Self.run("/bin/rm", [moved]) == 0)
        events = try await recorder.waitForEvents(6)
        #expect(events[5].type == .deleted)
        #expect(events.map(\.document) == Array(repeating: document.id, count: 6))
        #expect(events.map(\.id) == events.map(\.id).sorted() && Set(events.map(\.id)).count == 6)
        #expect(try await client.document(document.id).state == .deleted)

        // Nothing more: each change gave exactly one event.
        let health = try await client.health()
        #expect(health.lastEventId == events[5].id)
        recorder.cancel()
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("a touch or a write of identical bytes gives no event")
    func noEventWithoutChange() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let file = try sandbox.copyFixture("one-page.pdf", as: "same.pdf")
        let document = try await client.register(files: [file])
        #expect(try Self.run("/usr/bin/touch", [file]) == 0)
        #expect(try sandbox.quire(["write", file, "--from", QuireProcess.fixture("one-page.pdf")]).status == 0)
        // A marker change on another document, made after the two non-changes, bounds the wait.
        let marker = try sandbox.copyFixture("page-labels.pdf", as: "marker.pdf")
        let other = try await client.register(files: [marker])
        #expect(try sandbox.quire(["write", marker, "--from", QuireProcess.fixture("annotations.pdf")]).status == 0)
        let recorder = EventRecorder(client: client, after: 0)
        let events = try await recorder.waitForEvents(3)
        #expect(events.map(\.type) == [.created, .created, .changed])
        #expect(events.map(\.document) == [document.id, other.id, other.id])
        recorder.cancel()
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("the feed resumes with Last-Event-ID across a restart of the service, without loss or repetition")
    func reconnectsWithoutLoss() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let recorder = EventRecorder(
            client: client, policy: ReconnectPolicy(maximumAttempts: 100, initialDelay: .milliseconds(50)))
        try await recorder.waitForConnections(1)
        let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        _ = try await client.upload(pdf: pdf)
        _ = try await client.upload(pdf: pdf)
        _ = try await recorder.waitForEvents(2)

        #expect(service.stop() == 0)
        try service.restart()
        // Events made right after the restart: the feed gets them by replay or live, whichever comes first.
        for _ in 0..<3 { _ = try await client.upload(pdf: pdf) }
        let events = try await recorder.waitForEvents(5)
        #expect(recorder.connections >= 2)
        #expect(events.count == 5)
        #expect(events.map(\.type) == Array(repeating: .created, count: 5))
        // Exactly the log: a fresh feed replaying from 0 sees the same ids.
        let replay = EventRecorder(client: client, after: 0)
        let logged = try await replay.waitForEvents(5)
        #expect(logged.map(\.id) == events.map(\.id))
        #expect(Set(events.map(\.document)).count == 5)
        replay.cancel()
        recorder.cancel()
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("a dirty document and an external change: a conflict, then each resolution")
    func conflictsAndResolutions() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let recorder = EventRecorder(client: client)
        try await recorder.waitForConnections(1)
        let file = try sandbox.copyFixture("one-page.pdf", as: "edited.pdf")
        let document = try await client.register(files: [file])
        let external = QuireProcess.fixture("libjs-pdf-helloworld.pdf")

        // reload: the edits go, the file's new content is read.
        try await Self.makeConflict(client, document.id, title: "Edit 1", file: file, from: external, sandbox: sandbox)
        let conflict = try await client.conflict(of: document.id)
        #expect(conflict.state == .conflict)
        #expect(conflict.conflict?.type == .modification && conflict.conflict?.file == Self.resolved(file))
        #expect(try await client.document(document.id).conflict == .modification)
        let reloaded = try #require(try await client.resolveConflict(of: document.id, by: .reload))
        #expect(try reloaded.state == .clean && reloaded.contentEtag == Self.entityTag(of: external))
        #expect(reloaded.metadata.title != "Edit 1")

        // save: the edits are written over the file.
        try await Self.makeConflict(
            client, document.id, title: "Edit 2", file: file, from: QuireProcess.fixture("page-labels.pdf"),
            sandbox: sandbox)
        let saved = try #require(try await client.resolveConflict(of: document.id, by: .save))
        #expect(saved.state == .clean && saved.metadata.title == "Edit 2")
        #expect(try saved.contentEtag == Self.entityTag(of: file))

        // A deletion under edits (of another document: see the next test), then close: it leaves the store.
        let doomedFile = try sandbox.copyFixture("one-page.pdf", as: "doomed.pdf")
        let doomed = try await client.register(files: [doomedFile])
        _ = try await client.updateMetadata(of: doomed.id, DocumentMetadata(title: "Edit 3"))
        #expect(try Self.run("/bin/rm", [doomedFile]) == 0)
        let deletion = try await eventually("the deletion conflict") {
            try await client.conflict(of: doomed.id).conflict?.type == .deletion ? true : nil
        }
        #expect(deletion)
        #expect(try await client.document(doomed.id).state == .deleted)
        #expect(try await client.resolveConflict(of: doomed.id, by: .close) == nil)
        await #expect(throws: StoreClientError.self) { try await client.document(doomed.id) }

        // Conflicts (or a deletion) and resolutions alternate, in order; other events (`saved`) may come between.
        let events = try await eventually("three resolved events") {
            let events = recorder.events
            return events.filter { $0.type == .resolved }.count >= 3 ? events : nil
        }
        let flow = events.filter { [.conflict, .resolved, .deleted].contains($0.type) }
        #expect(flow.map(\.type) == [.conflict, .resolved, .conflict, .resolved, .deleted, .resolved])
        #expect(flow.compactMap(\.resolution) == [.reload, .save, .close])
        #expect(flow.compactMap(\.conflict) == [.modification, .modification])
        #expect(flow.map(\.document) == Array(repeating: document.id, count: 4) + [doomed.id, doomed.id])
        recorder.cancel()
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("a file deleted right after the service saved it is noticed (a deleted event, state deleted)")
    func deletionRightAfterSave() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        let client = try service.client()
        let file = try sandbox.copyFixture("one-page.pdf", as: "saved.pdf")
        let document = try await client.register(files: [file])
        try await Self.makeConflict(
            client, document.id, title: "Edit", file: file, from: QuireProcess.fixture("page-labels.pdf"),
            sandbox: sandbox)
        _ = try await client.resolveConflict(of: document.id, by: .save)
        _ = try await client.updateMetadata(of: document.id, DocumentMetadata(title: "Edit again"))
        #expect(try Self.run("/bin/rm", [file]) == 0)
        let deleted = try await eventually("the deletion of \(document.id)") {
            try await client.document(document.id).state == .deleted ? true : nil
        }
        #expect(deleted)
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("a restart keeps the catalog and the event ids")
    func restartKeepsCatalog() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        var client = try service.client()
        let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("page-labels.pdf")))
        _ = try await client.upload(pdf: pdf)
        let registered = try await client.register(files: [try sandbox.copyFixture("one-page.pdf", as: "kept.pdf")])
        let before = try await client.documents().collect()
        let lastEvent = try await client.health().lastEventId
        #expect(lastEvent >= 2)
        try await client.shutdown()
        #expect(service.stop() == 0)

        try service.restart()
        client = try service.client()
        let after = try await client.documents().collect()
        #expect(after.map(\.id) == before.map(\.id))
        #expect(after.map(\.etag) == before.map(\.etag))
        #expect(try await client.health().lastEventId == lastEvent)
        #expect(try await client.pageText(of: registered.id, page: 1).contains("Hello from page one."))
        let third = try await client.upload(pdf: pdf)
        let replay = EventRecorder(client: client, after: lastEvent)
        let events = try await replay.waitForEvents(1)
        #expect(events.first?.document == third.id && events.first?.type == .created)
        #expect((events.first?.id ?? 0) > lastEvent)
        replay.cancel()
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    @Test("a restart removes the temporary file a killed write left in the store; look-alikes stay")
    func restartRemovesOrphanedTemporaryFiles() async throws {
        let sandbox = try CoordinationSandbox()
        let service = try RunningService(sandbox: sandbox)
        var client = try service.client()
        let pdf = try Data(contentsOf: URL(fileURLWithPath: QuireProcess.fixture("one-page.pdf")))
        let uploaded = try await client.upload(pdf: pdf)
        try await client.shutdown()
        #expect(service.stop() == 0)

        // What a write killed between its sink's creation and its rename leaves behind, and files that only
        // look like it.
        let files = service.store.appendingPathComponent("files")
        let orphan = files.appendingPathComponent(".\(uploaded.id).quire-Kx9Lm2.pdf")
        let lookAlikes = [
            files.appendingPathComponent(".\(uploaded.id).quire-Kx9Lm2.pdf.bak"),
            files.appendingPathComponent("\(uploaded.id).quire-Kx9Lm2.pdf"),
        ]
        for url in [orphan] + lookAlikes { try Data("%PDF-1.7 partial".utf8).write(to: url) }

        try service.restart()
        client = try service.client()
        let deadline = ContinuousClock.now + .seconds(10)
        while FileManager.default.fileExists(atPath: orphan.path), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        for url in lookAlikes { #expect(FileManager.default.fileExists(atPath: url.path), "\(url.lastPathComponent)") }
        #expect(try await client.content(of: uploaded.id) == pdf)
        try await client.shutdown()
        #expect(service.stop() == 0)
    }

    // MARK: - Helpers

    /// Edits the document's title (it becomes dirty), then replaces its file from another process with
    /// `quire write`, and waits for the conflict.
    private static func makeConflict(
        _ client: StoreClient, _ id: String, title: String, file: String, from source: String,
        sandbox: CoordinationSandbox
    ) async throws {
        let dirty = try await client.updateMetadata(of: id, DocumentMetadata(title: title))
        #expect(dirty.state == .dirty)
        #expect(try sandbox.quire(["write", file, "--from", source]).status == 0)
        _ = try await eventually("the conflict of \(id)") {
            try await client.document(id).state == .conflict ? true : nil
        }
    }

    /// The service's entity tag for one file: its SHA-256 in lowercase hex, quoted.
    static func entityTag(_ data: Data) -> String {
        "\"" + SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() + "\""
    }

    static func entityTag(of path: String) throws -> String {
        entityTag(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The path with symbolic links resolved, as the service reports paths.
    static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// Runs a program and returns its exit status (within 30 seconds).
    static func run(_ program: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        try process.run()
        let deadline = Date(timeIntervalSinceNow: 30)
        while process.isRunning && Date() < deadline { usleep(1000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
