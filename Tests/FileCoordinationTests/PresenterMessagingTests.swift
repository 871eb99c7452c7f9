import FileCoordination
import Foundation
import Testing

/// What presenters are told, in which order, on which queue (API checklist §7 items 14–24).
@Suite("Presenter messaging")
struct PresenterMessagingTests {
    @Test(
        "§7.14 a default read: relinquish to reader, then save, on the presenter's queue, first; reacquire after"
    )
    func defaultRead() throws {
        let fixture = try PresentedFile()
        defer { fixture.close() }
        let (file, presenter) = (fixture.url, fixture.presenter)
        try makeCoordinator().coordinate(readingItemAt: file) { _ in presenter.mark("read") }
        #expect(presenter.waitFor(.reacquire))
        #expect(presenter.events == [.relinquishToReader, .save, .mark("read"), .reacquire])
        #expect(presenter.eventsOffQueue.isEmpty)
    }

    @Test("§7.15 a .withoutChanges read sends only relinquish to reader (and its reacquire)")
    func readWithoutChanges() throws {
        let fixture = try PresentedFile()
        defer { fixture.close() }
        let (file, presenter) = (fixture.url, fixture.presenter)
        try makeCoordinator().coordinate(readingItemAt: file, options: .withoutChanges) { _ in presenter.mark("read") }
        #expect(presenter.waitFor(.reacquire))
        #expect(presenter.events == [.relinquishToReader, .mark("read"), .reacquire])
    }

    @Test("§7.16 a plain write: relinquish to writer, accessor, didChange, reacquire; save only with .forMerging")
    func plainAndMergingWrite() throws {
        let fixture = try PresentedFile()
        defer { fixture.close() }
        let (file, presenter) = (fixture.url, fixture.presenter)
        try makeCoordinator().coordinate(writingItemAt: file) { url in
            presenter.mark("write")
            try Data("y".utf8).write(to: url)
        }
        #expect(presenter.waitFor(.reacquire))
        #expect(presenter.events == [.relinquishToWriter, .mark("write"), .didChange, .reacquire])
        #expect(presenter.eventsOffQueue.isEmpty)

        let merging = RecordingPresenter.registered(at: try fixture.tree.file("g.txt", contents: "x"))
        defer { FileCoordinator.removeFilePresenter(merging) }
        try makeCoordinator().coordinate(writingItemAt: fixture.tree.url("g.txt"), options: .forMerging) { _ in
            merging.mark("write")
        }
        #expect(merging.waitFor(.reacquire))
        #expect(merging.events == [.relinquishToWriter, .save, .mark("write"), .didChange, .reacquire])
    }

    @Test("§7.17 a write's accessor does not run until the presenter calls the block it got in relinquish(toWriter:)")
    func writeWaitsForDelayedRelinquish() throws {
        let fixture = try PresentedFile()
        defer { fixture.close() }
        let (file, presenter) = (fixture.url, fixture.presenter)
        presenter.relinquish(.hold)
        let gate = Gate()
        let write = BackgroundCall { try makeCoordinator().coordinate(writingItemAt: file) { _ in gate.pass() } }
        #expect(presenter.waitFor(.relinquishToWriter))
        #expect(!gate.entered.wait(Bound.negative))
        #expect(presenter.releaseHeldRelinquish() == 1)
        #expect(gate.entered.wait())
        gate.release.signal()
        expectSuccess(write)
        #expect(presenter.waitFor(.reacquire))
    }

    @Test("§7.17 a relinquish block that is never called keeps the write waiting until cancel(): 3072, no accessor")
    func neverCalledRelinquishThenCancel() throws {
        let fixture = try PresentedFile()
        defer { fixture.close() }
        let (file, presenter) = (fixture.url, fixture.presenter)
        presenter.relinquish(.hold)
        let writer = makeCoordinator()
        let ran = Locked(false)
        let write = BackgroundCall { try writer.coordinate(writingItemAt: file) { _ in ran.value = true } }
        #expect(presenter.waitFor(.relinquishToWriter))
        #expect(write.isStillRunning())
        writer.cancel()
        #expect(isUserCancelled(expectFailure(write)))
        #expect(!ran.value)
        // A late call of the block is harmless, and the presenter gets its reacquirer back.
        #expect(presenter.releaseHeldRelinquish() == 1)
        #expect(presenter.waitFor(.reacquire))
        #expect(!presenter.events.contains(.didChange))
    }

    @Test("§7.18 a presenter's error from save or accommodate-deletion fails the access with it; no accessor runs")
    func presenterErrorsFailTheAccess() throws {
        let fixture = try PresentedFile()
        defer { fixture.close() }
        let (file, presenter) = (fixture.url, fixture.presenter)

        presenter.failSaving(with: PresenterRefusal(reason: "cannot save now"))
        let readError = thrownError {
            try makeCoordinator().coordinate(readingItemAt: file) { _ in accessorMustNotRun() }
        }
        #expect(readError as? PresenterRefusal == PresenterRefusal(reason: "cannot save now"))

        presenter.failDeletion(with: PresenterRefusal(reason: "document is open"))
        let deleteError = thrownError {
            try makeCoordinator().coordinate(writingItemAt: file, options: .forDeleting) { _ in accessorMustNotRun() }
        }
        #expect(deleteError as? PresenterRefusal == PresenterRefusal(reason: "document is open"))
        #expect(FileManager.default.fileExists(atPath: file.path))

        // The queue form hands the error to its accessor.
        presenter.failSaving(with: PresenterRefusal(reason: "busy"))
        let reported = Locked<(any Error)?>(nil)
        let called = Signal()
        let merging = [FileAccessIntent.writingIntent(with: file, options: .forMerging)]
        makeCoordinator().coordinate(with: merging, queue: OperationQueue()) { error in
            reported.value = error
            called.signal()
        }
        #expect(called.wait())
        #expect(reported.value as? PresenterRefusal == PresenterRefusal(reason: "busy"))

        // Every presenter asked to relinquish got its reacquire; nothing else happened.
        #expect(presenter.waitUntil { $0.filter { $0 == .reacquire }.count == 3 })
        #expect(
            presenter.events == [
                .relinquishToReader, .save, .reacquire, .relinquishToWriter, .accommodateDeletion, .reacquire,
                .relinquishToWriter, .save, .reacquire,
            ])
    }

    @Test("§7.19 .forDeleting: the item's presenter, the presenters inside a directory, and the enclosing package's")
    func deletionMessages() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let directory = try tree.directory("D")
        let inside = try tree.file("D/inside.txt", contents: "x")
        let packaged = try tree.file("Doc.q19pkg/page.txt", contents: "x")
        let filePresenter = RecordingPresenter.registered(at: file, name: "file")
        let insidePresenter = RecordingPresenter.registered(at: inside, name: "inside")
        let packagePresenter = RecordingPresenter.registered(at: tree.url("Doc.q19pkg"), name: "package")
        let presenters = [filePresenter, insidePresenter, packagePresenter]
        defer { presenters.forEach(FileCoordinator.removeFilePresenter) }

        try makeCoordinator().coordinate(writingItemAt: file, options: .forDeleting) { url in
            filePresenter.mark("delete")
            try FileManager.default.removeItem(at: url)
        }
        #expect(filePresenter.waitFor(.reacquire))
        #expect(filePresenter.events == [.relinquishToWriter, .accommodateDeletion, .mark("delete"), .reacquire])

        try makeCoordinator().coordinate(writingItemAt: directory, options: .forDeleting) { _ in
            insidePresenter.mark("delete")
        }
        #expect(insidePresenter.waitFor(.reacquire))
        #expect(insidePresenter.events == [.relinquishToWriter, .accommodateDeletion, .mark("delete"), .reacquire])

        try PackageExtensions.with("q19pkg") {
            try makeCoordinator().coordinate(writingItemAt: packaged, options: .forDeleting) { _ in
                packagePresenter.mark("delete")
            }
        }
        #expect(packagePresenter.waitFor(.reacquire))
        // The write inside the package is then reported to the package's presenter (issue 15).
        #expect(
            packagePresenter.events == [
                .relinquishToWriter, .accommodateSubitemDeletion(path(packaged)), .mark("delete"),
                .subitemDidChange(path(packaged)), .reacquire,
            ])
    }

    @Test("§7.20 a coordinator made with presenter P never messages P, while another presenter Q of the file is")
    func ownPresenterIsNeverMessaged() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let own = RecordingPresenter.registered(at: file, name: "own")
        let other = RecordingPresenter.registered(at: file, name: "other")
        defer { [own, other].forEach(FileCoordinator.removeFilePresenter) }
        let coordinator = makeCoordinator(filePresenter: own)
        try coordinator.coordinate(readingItemAt: file) { _ in }
        try coordinator.coordinate(writingItemAt: file, options: .forMerging) { _ in }
        try coordinator.coordinate(writingItemAt: file, options: .forDeleting) { _ in }
        #expect(other.waitUntil { $0.filter { $0 == .reacquire }.count == 3 })
        #expect(
            other.events == [
                .relinquishToReader, .save, .reacquire, .relinquishToWriter, .save, .didChange, .reacquire,
                .relinquishToWriter, .accommodateDeletion, .reacquire,
            ])
        // Anything sent to `own` would have been queued before `other`'s last reacquire.
        #expect(own.drainQueue())
        #expect(own.events.isEmpty)
    }

    @Test("§7.21 item(at:didMoveTo:) tells the presenters of the item, of its contents and of its parent")
    func moveMessages() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let parent = try tree.directory("P")
        let file = try tree.file("P/f.txt", contents: "x")
        let movedFile = tree.url("P/g.txt")
        let directory = try tree.directory("P/D")
        let inside = try tree.file("P/D/inside.txt", contents: "x")
        let movedDirectory = tree.url("P/E")
        let parentPresenter = RecordingPresenter.registered(at: parent, name: "parent")
        let filePresenter = RecordingPresenter.registered(at: file, name: "file")
        let ownPresenter = RecordingPresenter.registered(at: file, name: "own")
        let directoryPresenter = RecordingPresenter.registered(at: directory, name: "directory")
        let insidePresenter = RecordingPresenter.registered(at: inside, name: "inside")
        let presenters = [parentPresenter, filePresenter, ownPresenter, directoryPresenter, insidePresenter]
        defer { presenters.forEach(FileCoordinator.removeFilePresenter) }

        let mover = makeCoordinator(filePresenter: ownPresenter)
        try mover.coordinate(writingItemAt: file, options: .forMoving) { url in
            try FileManager.default.moveItem(at: url, to: movedFile)
            mover.item(at: url, didMoveTo: movedFile)
        }
        #expect(filePresenter.waitFor(.reacquire))
        #expect(filePresenter.events == [.relinquishToWriter, .didMove(path(movedFile)), .reacquire])
        #expect(samePath(filePresenter.presentedItemURL, movedFile))
        #expect(parentPresenter.waitFor(.subitemDidMove(path(file), path(movedFile))))

        let directoryMover = makeCoordinator()
        try directoryMover.coordinate(writingItemAt: directory, options: .forMoving) { url in
            try FileManager.default.moveItem(at: url, to: movedDirectory)
            directoryMover.item(at: url, didMoveTo: movedDirectory)
        }
        let movedInside = movedDirectory.appendingPathComponent("inside.txt")
        #expect(directoryPresenter.waitFor(.reacquire))
        #expect(directoryPresenter.events == [.relinquishToWriter, .didMove(path(movedDirectory)), .reacquire])
        #expect(insidePresenter.waitFor(.reacquire))
        #expect(insidePresenter.events == [.relinquishToWriter, .didMove(path(movedInside)), .reacquire])
        #expect(samePath(insidePresenter.presentedItemURL, movedInside))
        #expect(parentPresenter.waitFor(.subitemDidMove(path(directory), path(movedDirectory))))
        #expect(
            parentPresenter.events == [
                .subitemDidMove(path(file), path(movedFile)), .subitemDidMove(path(directory), path(movedDirectory)),
            ])
        #expect(ownPresenter.drainQueue())
        #expect(ownPresenter.events.isEmpty)
    }

    @Test("§7.22 removeFilePresenter stops all callbacks; filePresenters reflects add and remove exactly")
    func removeStopsCallbacks() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let presenter = RecordingPresenter(url: file)
        let witness = RecordingPresenter.registered(at: file, name: "witness")
        defer { FileCoordinator.removeFilePresenter(witness) }
        func registrations() -> Int { FileCoordinator.filePresenters.filter { $0 === presenter }.count }

        #expect(registrations() == 0)
        FileCoordinator.addFilePresenter(presenter)
        FileCoordinator.addFilePresenter(presenter)
        #expect(registrations() == 1)
        try makeCoordinator().coordinate(writingItemAt: file) { _ in }
        #expect(presenter.waitFor(.reacquire))
        let before = presenter.events

        FileCoordinator.removeFilePresenter(presenter)
        #expect(registrations() == 0)
        FileCoordinator.removeFilePresenter(presenter)  // harmless
        try makeCoordinator().coordinate(readingItemAt: file) { _ in }
        try makeCoordinator().coordinate(writingItemAt: file, options: .forDeleting) { _ in }
        #expect(witness.waitUntil { $0.filter { $0 == .reacquire }.count == 3 })
        #expect(presenter.drainQueue())
        #expect(presenter.events == before)
    }

    @Test("§7.22 removing a presenter that owes a reply lets the waiting access go on")
    func removingSilentPresenterReleasesWaiter() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = try tree.file("f.txt", contents: "x")
        let presenter = RecordingPresenter.registered(at: file)
        presenter.relinquish(.hold)
        let gate = Gate()
        let write = BackgroundCall { try makeCoordinator().coordinate(writingItemAt: file) { _ in gate.pass() } }
        #expect(presenter.waitFor(.relinquishToWriter))
        #expect(!gate.entered.wait(Bound.negative))
        FileCoordinator.removeFilePresenter(presenter)
        #expect(gate.entered.wait())
        gate.release.signal()
        expectSuccess(write)
        #expect(presenter.releaseHeldRelinquish() == 1)  // late and harmless
        #expect(presenter.drainQueue())
        #expect(presenter.events == [.relinquishToWriter])
    }

    @Test("§7.23 a presenter with a nil URL gets nothing; after a write on its behalf creates the item, it does")
    func nilURLPresenterJoinsAfterCreation() throws {
        let tree = try TemporaryTree()
        defer { tree.remove() }
        let file = tree.url("new.txt")
        let presenter = RecordingPresenter.registered(at: nil)
        let witness = RecordingPresenter.registered(at: file, name: "witness")
        defer { [presenter, witness].forEach(FileCoordinator.removeFilePresenter) }

        try makeCoordinator().coordinate(writingItemAt: file) { _ in }
        #expect(witness.waitFor(.reacquire))
        #expect(presenter.drainQueue())
        #expect(presenter.events.isEmpty)

        try makeCoordinator(filePresenter: presenter).coordinate(writingItemAt: file) { url in
            try Data("created".utf8).write(to: url)
            presenter.presentedItemURL = url
        }
        try makeCoordinator().coordinate(readingItemAt: file, options: .withoutChanges) { _ in }
        #expect(presenter.waitFor(.reacquire))
        #expect(presenter.events == [.relinquishToReader, .reacquire])
    }

    @Test("§7.24 a plain write(2) without coordination gives no callback to a presenter not observing such changes")
    func uncoordinatedWriteIsNotReported() throws {
        let fixture = try PresentedFile()
        defer { fixture.close() }
        let (file, presenter) = (fixture.url, fixture.presenter)
        #expect(!presenter.observesUncoordinatedChanges)
        let descriptor = open(file.path, O_WRONLY | O_TRUNC)
        try #require(descriptor >= 0)
        let written = "changed".withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
        #expect(written == 7)
        try Data("replaced".utf8).write(to: file, options: .atomic)
        // A negative check: nothing arrives within a span well over the watcher's 20 ms debounce.
        #expect(!presenter.waitUntil(within: 0.3) { !$0.isEmpty })
    }
}
