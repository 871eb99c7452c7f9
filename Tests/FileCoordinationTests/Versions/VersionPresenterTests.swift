import FileCoordination
import Foundation
import Testing

// Fails on main: FilePresenter had no version messages and the versions store told no presenter of its changes.
@Suite("Presenters hear of versions added, removed and resolved")
struct VersionPresenterTests {
    @Test("in one process: the item's presenter and its directory's, with the version itself")
    func oneProcess() throws {
        let sandbox = try VersionsSandbox()
        let item = try sandbox.write("mine", to: "notes.pdf")
        let theirs = try sandbox.write("theirs", to: "theirs.pdf")
        let presenter = RecordingPresenter.registered(at: item, name: "item")
        let directory = RecordingPresenter.registered(at: sandbox.items, name: "directory")
        defer {
            FileCoordinator.removeFilePresenter(presenter)
            FileCoordinator.removeFilePresenter(directory)
        }
        let path = item.standardizedFileURL.path

        let plain = try sandbox.run { try FileVersion.add(ofItemAt: item, withContentsOf: item) }
        let conflict = try sandbox.run { try FileVersion.addConflictVersion(ofItemAt: item, withContentsOf: theirs) }
        _ = try sandbox.run { try conflict.setResolved(true) }
        try sandbox.run { try plain.remove() }
        try sandbox.run { try FileVersion.removeOtherVersions(ofItemAt: item) }

        let expected: [RecordingPresenter.Event] = [
            .version("gained", plain.id), .version("gained", conflict.id), .version("resolved", conflict.id),
            .version("lost", plain.id), .version("lost", conflict.id),
        ]
        #expect(presenter.waitUntil { $0.count >= expected.count })
        #expect(presenter.events == expected)
        #expect(presenter.eventsOffQueue.isEmpty)
        #expect(
            directory.waitUntil { $0.count >= expected.count }
                && directory.events == [
                    .subitemVersion(path, "gained", plain.id), .subitemVersion(path, "gained", conflict.id),
                    .subitemVersion(path, "resolved", conflict.id), .subitemVersion(path, "lost", plain.id),
                    .subitemVersion(path, "lost", conflict.id),
                ])

        // The version arrives whole: flags, name, store, and contents that can be read while it is kept.
        let gained = try #require(presenter.versionsReceived.dropFirst().first)
        #expect(gained.id == conflict.id && gained.isConflict && !gained.isResolved && !gained.isCurrent)
        #expect(gained.localizedName == "notes.pdf" && gained.itemURL.path == path)
        #expect(gained.url == conflict.url)
        #expect(presenter.versionsReceived[2].isResolved)
    }

    @Test("a presenter of another item, or of none, hears nothing")
    func otherItemsHearNothing() throws {
        let sandbox = try VersionsSandbox()
        let item = try sandbox.write("mine", to: "a.pdf")
        let other = RecordingPresenter.registered(at: try sandbox.write("other", to: "b.pdf"), name: "other")
        let nowhere = RecordingPresenter.registered(at: nil, name: "nowhere")
        let itself = RecordingPresenter.registered(at: item, name: "item")
        defer { for presenter in [other, nowhere, itself] { FileCoordinator.removeFilePresenter(presenter) } }
        let added = try sandbox.run { try FileVersion.add(ofItemAt: item, withContentsOf: item) }
        // The item's presenter is told after the other two would have been: their queues are drained then.
        #expect(itself.waitFor(.version("gained", added.id)))
        #expect(other.drainQueue() && nowhere.drainQueue())
        #expect(other.events.isEmpty && nowhere.events.isEmpty)
    }

    @Test("across processes: a second process adds, resolves and removes; this process's presenters hear it")
    func crossProcess() throws {
        let sandbox = try VersionsSandbox()
        let item = try sandbox.write("mine", to: "shared.pdf")
        let theirs = try sandbox.write("theirs", to: "theirs.pdf")
        let presenter = RecordingPresenter.registered(at: item, name: "item")
        let directory = RecordingPresenter.registered(at: sandbox.items, name: "directory")
        defer {
            FileCoordinator.removeFilePresenter(presenter)
            FileCoordinator.removeFilePresenter(directory)
        }
        let added = try #require(try VersionsProbeRunner.run(["add", item.path, item.path], store: sandbox.store).first)
        let conflict = try #require(
            try VersionsProbeRunner.run(["conflict", item.path, theirs.path], store: sandbox.store).first)
        _ = try VersionsProbeRunner.run(["resolve", item.path, conflict], store: sandbox.store)
        _ = try VersionsProbeRunner.run(["remove", item.path, added], store: sandbox.store)
        _ = try VersionsProbeRunner.run(["removeAll", item.path], store: sandbox.store)
        let expected: [RecordingPresenter.Event] = [
            .version("gained", added), .version("gained", conflict), .version("resolved", conflict),
            .version("lost", added), .version("lost", conflict),
        ]
        #expect(presenter.waitUntil { $0.count >= expected.count })
        #expect(presenter.events == expected)
        let path = item.standardizedFileURL.path
        #expect(directory.waitFor(.subitemVersion(path, "lost", conflict)))
        // The version came from the other process's store (the one named by QUIRE_VERSIONS_DIR there).
        #expect(presenter.versionsReceived.map(\.id) == [added, conflict, conflict, added, conflict])
        #expect(presenter.versionsReceived.allSatisfy { $0.url.path.hasPrefix(sandbox.store.directory.path) })
    }
}
