import CQuireLinux
import DocumentModel
import Documents
import FileCoordination
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// apple-and-nutrient-api.md §7 items 26–28: the coordinated provider as a presenter.
@Suite("Coordinated file data provider")
struct CoordinatedProviderTests {
    @Test("It is its own presenter, presents its file, and follows a coordinated move (with a KVO-style notice)")
    func presenterAndMoves() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf")
            let provider = CoordinatedFileDataProvider(fileURL: url)
            #expect(provider.filePresenter === provider)
            #expect(provider.presentedItemURL == provider.fileURL)
            #expect(provider.observesUncoordinatedChanges)
            try observe([provider])
            defer { FilePresenterCoordinator.shared.unobserve([provider]) }

            let moves = EventLog<(URL?, URL?)>()
            let token = NotificationCenter.default.addObserver(
                forName: .dataProviderFileURLDidChange, object: provider, queue: nil
            ) { notification in
                moves.append((notification.userInfo?["oldURL"] as? URL, notification.userInfo?["newURL"] as? URL))
            }
            defer { NotificationCenter.default.removeObserver(token) }

            let destination = folder.url("renamed.pdf")
            let coordinator = boundedCoordinator()
            try coordinator.coordinate(
                writingItemAt: url, options: .forMoving, writingItemAt: destination, options: .forReplacing
            ) {
                from, to in
                try FileManager.default.moveItem(at: from, to: to)
                coordinator.item(at: from, didMoveTo: to)
            }
            #expect(moves.wait(for: 1))
            #expect(moves.all.first?.0 == url)
            #expect(moves.all.first?.1 == destination)
            #expect(provider.fileURL == destination)
            #expect(provider.presentedItemURL == destination)
            #expect(try provider.data() == Fixture.data("one-page.pdf"))
        }
    }

    @Test("A coordinated write that changes the content gives exactly one delegate call, off the main thread")
    func contentChangeForwardedOnce() async throws {
        try await withObservedProvider { url, provider, delegate in

            try coordinatedReplace(url, with: Fixture.data("metadata.pdf"))
            #expect(delegate.calls.wait(for: 1))
            #expect(delegate.calls.stays(atMost: 1))
            #expect(delegate.calls.all == [.changed(onMainThread: false)])
        }
    }

    @Test("A touch, an xattr, a same-bytes rewrite and a metadata-only coordinated write give no delegate call")
    func metadataOnlyChangesAreSilent() async throws {
        try await withObservedProvider { url, provider, delegate in
            let original = try Fixture.data("one-page.pdf")

            // touch (uncoordinated, attributes only)
            #expect(utimensat(AT_FDCWD, url.path, nil, 0) == 0)
            // same bytes, coordinated and uncoordinated
            try coordinatedReplace(url, with: original)
            // Uncoordinated, in place: the same bytes over themselves, never truncated first (a truncating rewrite
            // passes through an empty file, which is a real change when a loaded machine lets a read see it).
            let handle = try FileHandle(forWritingTo: url)
            try handle.write(contentsOf: original)
            try handle.close()
            // an extended attribute (where the file system has them)
            let attributeSet = setExtendedAttribute(url.path, "user.quire.test", "1")
            #expect(attributeSet || errno == ENOTSUP)
            // metadata-only coordinated write
            try boundedCoordinator().coordinate(writingItemAt: url, options: .contentIndependentMetadataOnly) { url in
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
            }
            #expect(delegate.calls.stays(atMost: 0))

            // …while a real change is still heard (the provider is alive and observing).
            try coordinatedReplace(url, with: Fixture.data("metadata.pdf"))
            #expect(delegate.calls.wait(for: 1))
        }
    }

    @Test("An uncoordinated overwrite that changes the content is forwarded once")
    func uncoordinatedChange() async throws {
        try await withObservedProvider { url, provider, delegate in

            try Fixture.data("metadata.pdf").write(to: url)
            #expect(delegate.calls.wait(for: 1))
            #expect(delegate.calls.stays(atMost: 1))
        }
    }

    @Test("A change or a deletion made without coordination just after a coordinated write is not lost in its echo")
    func changesRightAfterACoordinatedWrite() async throws {
        try await withObservedProvider { url, provider, delegate in

            // Both changes may be seen as one (the check after the coordinated write may already read the second
            // content); what must not happen is that the provider stays on the first content.
            try coordinatedReplace(url, with: Fixture.data("metadata.pdf"))
            try Fixture.data("mixed-sizes.pdf").write(to: url)  // at once, while the write's echo is suppressed
            let final = ContentFingerprint(of: try Fixture.data("mixed-sizes.pdf"))
            let deadline = Date(timeIntervalSinceNow: Bound.positive)
            while provider.lastSeenFingerprint != final && Date() < deadline { usleep(10_000) }
            #expect(provider.lastSeenFingerprint == final)
            #expect(delegate.calls.all.last == .changed(onMainThread: false))

            // The third content may or may not be seen before the file is gone; the deletion is reported once.
            try coordinatedReplace(url, with: Fixture.data("one-page.pdf"))
            try FileManager.default.removeItem(at: url)
            let deletionDeadline = Date(timeIntervalSinceNow: Bound.positive)
            while !delegate.calls.all.contains(.deletion) && Date() < deletionDeadline {
                delegate.calls.wait(for: delegate.calls.all.count + 1, 0.1)
            }
            let seen = delegate.calls.all.count
            #expect(delegate.calls.stays(atMost: seen))
            #expect(delegate.calls.all.filter { $0 == .deletion }.count == 1)
            #expect(delegate.calls.all.last == .deletion)
        }
    }

    @Test("A coordinated deletion reaches the delegate and proceeds only after its completion handler")
    func deletionWaitsForDelegate() async throws {
        try await withObservedProvider(deletionDelay: 0.3) { url, provider, delegate in

            let deletedAt = Locked<Date?>(nil)
            try boundedCoordinator().coordinate(writingItemAt: url, options: .forDeleting) { url in
                deletedAt.value = Date()
                try FileManager.default.removeItem(at: url)
            }
            #expect(delegate.calls.all.contains(.deletion))
            let answered = try #require(delegate.deletionAnswered.all.first)
            let deleted = try #require(deletedAt.value)
            #expect(deleted >= answered)
        }
    }

    @Test("The provider's own writes are not reported to its delegate")
    func ownWritesAreSilent() async throws {
        try await withObservedProvider { url, provider, delegate in

            let sink = try provider.createDataSink(options: [])
            #expect(sink.writeData(try Fixture.data("metadata.pdf")) && sink.finish())
            try provider.replaceContents(with: sink)
            #expect(delegate.calls.stays(atMost: 0))
        }
    }

    @Test("A write's verification and its registration's are one check, coordinated only when the file changed")
    func verificationsAreOneUncoordinatedLook() async throws {
        try await withObservedProvider { url, provider, delegate in
            let before = provider.checksMade

            // As an upload does: the write asks for a verification, the registration right after for another.
            let sink = try provider.createDataSink(options: [])
            #expect(sink.writeData(try Fixture.data("metadata.pdf")) && sink.finish())
            try provider.replaceContents(with: sink)
            provider.verifyAfterRegistration()
            #expect(waitForVerifications(of: provider, beyond: before.verifications))
            let quiet = provider.checksMade
            #expect(quiet.verifications == before.verifications + 1)
            #expect(quiet.coordinated == before.coordinated)
            #expect(delegate.calls.all.isEmpty)

            // A file changed without coordination and unseen by any watcher (as in a write's echo; here the
            // provider is no longer observed) is checked inside a coordinated read, and reported.
            FilePresenterCoordinator.shared.unobserve([provider])
            try Fixture.data("mixed-sizes.pdf").write(to: url)
            provider.verifyAfterRegistration()
            #expect(waitForVerifications(of: provider, beyond: quiet.verifications))
            provider.waitForChecksInProgress()
            #expect(provider.checksMade.coordinated >= quiet.coordinated + 1)
            #expect(provider.lastSeenFingerprint == ContentFingerprint(of: try Fixture.data("mixed-sizes.pdf")))
            #expect(delegate.calls.all.contains(.changed(onMainThread: false)))
        }
    }

    @Test("resolveFileConflict(.save) restores a deleted file from the last bytes read; without a copy it does nothing")
    func providerSaveResolution() async throws {
        try await offPool {
            let folder = try Folder()
            defer { folder.remove() }
            let url = try folder.copy("one-page.pdf")
            let fresh = CoordinatedFileDataProvider(fileURL: url)
            #expect(!fresh.isConflictResolutionAvailable)
            try FileManager.default.removeItem(at: url)
            try fresh.resolveFileConflict(with: .save)
            #expect(!FileManager.default.fileExists(atPath: url.path))

            try Fixture.data("one-page.pdf").write(to: url)
            let provider = CoordinatedFileDataProvider(fileURL: url)
            let bytes = try provider.data()
            #expect(provider.isConflictResolutionAvailable)
            try FileManager.default.removeItem(at: url)
            try provider.resolveFileConflict(with: .save)
            #expect(try Data(contentsOf: url) == bytes)
        }
    }
}

/// Runs `body` off the cooperative pool with a provider of a copy of `one-page.pdf` (read once, as a document
/// reads it), its recording delegate (answering deletions after `deletionDelay` seconds when given), and the
/// provider observed; unobserves it and removes the copy after.
private func withObservedProvider(
    deletionDelay: Double? = nil,
    _ body: @escaping @Sendable (URL, CoordinatedFileDataProvider, RecordingDelegate) throws -> Void
) async throws {
    try await offPool {
        let folder = try Folder()
        defer { folder.remove() }
        let url = try folder.copy("one-page.pdf")
        let provider = CoordinatedFileDataProvider(fileURL: url)
        let delegate = RecordingDelegate()
        if let deletionDelay { delegate.deletionDelay = deletionDelay }
        provider.coordinationDelegate = delegate
        _ = try provider.data()
        try observe([provider])
        defer { FilePresenterCoordinator.shared.unobserve([provider]) }
        try body(url, provider, delegate)
    }
}

/// Waits (bounded) until `provider` ran a verification more than `count` and none waits any more.
private func waitForVerifications(of provider: CoordinatedFileDataProvider, beyond count: Int) -> Bool {
    let deadline = Date(timeIntervalSinceNow: Bound.positive)
    while Date() < deadline {
        let made = provider.checksMade
        if made.verifications > count && !made.isVerificationWaiting { return true }
        usleep(5_000)
    }
    return false
}

/// setxattr(2), through the project's C shim (Glibc's Swift module does not export <sys/xattr.h>).
private func setExtendedAttribute(_ path: String, _ name: String, _ value: String) -> Bool {
    Array(value.utf8).withUnsafeBytes { bytes in
        CQuire_setExtendedAttribute(path, name, bytes.baseAddress, bytes.count) == 0
    }
}
