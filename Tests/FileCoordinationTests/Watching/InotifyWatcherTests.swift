#if DEBUG  // @testable needs a debug build (or -enable-testing)
import QuireSystem
import Foundation
import Synchronization
import Testing

@testable import FileCoordination

/// The whole watcher on real files in a temporary directory per test; every wait has a deadline.
@Suite("InotifyWatcher on real files")
struct InotifyWatcherTests {
    let directory = TemporaryDirectory()
    let recorder = ChangeRecorder()
    /// Long enough, after a report, to be sure no second one follows (3 debounce windows of 20 ms).
    let quiet = Duration.milliseconds(60)

    /// Waits for at least one change, then for a quiet period, and returns everything reported.
    func settledChanges() async -> [WatchedChange] {
        _ = await recorder.wait(forCount: 1)
        try? await Task.sleep(for: quiet)
        return recorder.changes
    }

    @Test func aBurstOfAppendsIsOneContentsChange() async throws {
        let file = directory.file("f")
        appendText("start\n", to: file)
        let watcher = makeWatcher(recorder)
        try watcher.watch(file, token: 1)
        for line in 0..<10 { appendText("line \(line)\n", to: file) }
        #expect(await settledChanges() == [WatchedChange(token: 1, path: file, kind: .contentsChanged)])
    }

    @Test func writingATemporaryFileAndRenamingItOverIsOneContentsChange() async throws {
        let file = directory.file("f")
        appendText("old\n", to: file)
        let watcher = makeWatcher(recorder)
        try watcher.watch(file, token: 1)
        appendText("new\n", to: directory.file("f.tmp"))
        #expect(rename(directory.file("f.tmp"), file) == 0)
        #expect(await settledChanges() == [WatchedChange(token: 1, path: file, kind: .contentsChanged)])
    }

    @Test func touchingIsAMetadataChangeOnly() async throws {
        let file = directory.file("f")
        appendText("x\n", to: file)
        let watcher = makeWatcher(recorder)
        try watcher.watch(file, token: 1)
        #expect(utimes(file, nil) == 0)
        #expect(await settledChanges() == [WatchedChange(token: 1, path: file, kind: .metadataChanged)])
        // touch(1) also opens the file for writing: the close without a write is not a contents change.
        #expect(try await runChild("/usr/bin/touch", [file]) == 0)
        _ = await recorder.wait(forCount: 2)
        try await Task.sleep(for: quiet)
        #expect(recorder.changes.map(\.kind) == [.metadataChanged, .metadataChanged])
    }

    @Test func deletingIsReportedAsDeleted() async throws {
        let file = directory.file("f")
        appendText("x\n", to: file)
        let watcher = makeWatcher(recorder)
        try watcher.watch(file, token: 1)
        #expect(unlink(file) == 0)
        #expect(await settledChanges() == [WatchedChange(token: 1, path: file, kind: .deleted)])
    }

    @Test func aRenameInTheSameDirectoryIsAMoveThatTheTokenFollows() async throws {
        let (file, renamed) = (directory.file("f"), directory.file("g"))
        appendText("x\n", to: file)
        let watcher = makeWatcher(recorder)
        try watcher.watch(file, token: 1)
        #expect(rename(file, renamed) == 0)
        #expect(await settledChanges() == [WatchedChange(token: 1, path: file, kind: .movedAway(to: renamed))])
        appendText("more\n", to: renamed)
        _ = await recorder.wait(forCount: 2)
        #expect(recorder.changes.last == WatchedChange(token: 1, path: renamed, kind: .contentsChanged))
    }

    @Test func aRenameOutOfTheWatchedDirectoriesIsAMoveToNowhere() async throws {
        let file = directory.file("f")
        appendText("x\n", to: file)
        let elsewhere = directory.directory("elsewhere")
        let watcher = makeWatcher(recorder)
        try watcher.watch(file, token: 1)
        #expect(rename(file, elsewhere + "/f") == 0)
        #expect(await settledChanges() == [WatchedChange(token: 1, path: file, kind: .movedAway(to: nil))])
        // The token keeps its path: a new file there is reported.
        appendText("again\n", to: file)
        _ = await recorder.wait(forCount: 2)
        #expect(recorder.changes.last == WatchedChange(token: 1, path: file, kind: .contentsChanged))
    }

    @Test func aRenameIntoAnotherWatchedDirectoryMovesTheTokenAndItsWatch() async throws {
        let (first, second) = (directory.directory("one"), directory.directory("two"))
        appendText("x\n", to: first + "/f")
        let watcher = makeWatcher(recorder)
        try watcher.watch(first + "/f", token: 1)
        try watcher.watch(second + "/other", token: 2)
        #expect(watcher.watchCount == 2)
        #expect(rename(first + "/f", second + "/f") == 0)
        #expect(
            await settledChanges() == [WatchedChange(token: 1, path: first + "/f", kind: .movedAway(to: second + "/f"))]
        )
        #expect(watcher.watchCount == 1)
    }

    @Test func tokensInOneDirectoryShareOneWatchAndSeeOnlyTheirOwnFiles() async throws {
        let (a, b) = (directory.file("a"), directory.file("b"))
        appendText("a\n", to: a)
        appendText("b\n", to: b)
        let watcher = makeWatcher(recorder)
        try watcher.watch(a, token: 1)
        try watcher.watch(b, token: 2)
        let descriptor = try #require(watcher.inotifyDescriptor)
        #expect(watcher.watchCount == 1)
        #expect(try kernelWatchCount(descriptor) == 1)

        appendText("a\n", to: a)
        #expect(await settledChanges() == [WatchedChange(token: 1, path: a, kind: .contentsChanged)])
        appendText("b\n", to: b)
        #expect(await recorder.wait(forCount: 2))
        #expect(recorder.changes.last == WatchedChange(token: 2, path: b, kind: .contentsChanged))

        watcher.unwatch(token: 1)
        #expect(try kernelWatchCount(descriptor) == 1)
        appendText("a\n", to: a)
        appendText("b\n", to: b)
        #expect(await recorder.wait(forCount: 3))
        try await Task.sleep(for: quiet)
        #expect(recorder.changes.count == 3)
        #expect(recorder.changes.last == WatchedChange(token: 2, path: b, kind: .contentsChanged))

        watcher.unwatch(token: 2)
        #expect(watcher.watchCount == 0)
        #expect(try kernelWatchCount(descriptor) == 0)
    }

    @Test func aCoordinatedWriteIsNotEchoedButALaterWriteIs() async throws {
        let (file, other) = (directory.file("f"), directory.file("other"))
        appendText("x\n", to: file)
        let watcher = makeWatcher(recorder)
        try watcher.watch(file, token: 1)
        try watcher.watch(other, token: 2)
        let write = watcher.beginCoordinatedWrite(file)
        appendText("coordinated\n", to: directory.file("f.tmp"))
        #expect(rename(directory.file("f.tmp"), file) == 0)
        appendText("uncoordinated\n", to: other)
        watcher.endCoordinatedWrite(write)
        #expect(await settledChanges() == [WatchedChange(token: 2, path: other, kind: .contentsChanged)])
        // The grace (20 ms) has passed during the quiet period.
        appendText("later\n", to: file)
        #expect(await recorder.wait(forCount: 2))
        try await Task.sleep(for: quiet)
        #expect(recorder.changes.last == WatchedChange(token: 1, path: file, kind: .contentsChanged))
        #expect(recorder.changes.count == 2)
    }

    @Test func suppressionIsExactEvenWithoutGrace() async throws {
        let (before, after) = (directory.file("before"), directory.file("after"))
        appendText("x\n", to: before)
        appendText("x\n", to: after)
        let watcher = InotifyWatcher(
            suppressionGrace: .zero, onWarning: { recorder.warn($0) }, onEvent: { recorder.record($0) })
        try watcher.watch(before, token: 1)
        try watcher.watch(after, token: 2)
        // An uncoordinated change just before the write begins is reported...
        #expect(utimes(before, nil) == 0)
        let first = watcher.beginCoordinatedWrite(before)
        appendText("coordinated\n", to: before)
        watcher.endCoordinatedWrite(first)
        // ...and one just after it ends, too; the writes' own events are not (they would make these contents).
        let second = watcher.beginCoordinatedWrite(after)
        appendText("coordinated\n", to: after)
        watcher.endCoordinatedWrite(second)
        #expect(utimes(after, nil) == 0)
        _ = await recorder.wait(forCount: 2)
        try await Task.sleep(for: quiet)
        #expect(
            Set(recorder.changes) == [
                WatchedChange(token: 1, path: before, kind: .metadataChanged),
                WatchedChange(token: 2, path: after, kind: .metadataChanged),
            ])
        #expect(recorder.changes.count == 2)
    }

    @Test func aChangeMadeByAChildProcessIsReported() async throws {
        let file = directory.file("f")
        appendText("x\n", to: file)
        let watcher = makeWatcher(recorder)
        try watcher.watch(file, token: 1)
        #expect(try await runChild("/bin/sh", ["-c", "echo x >> '\(file)'"]) == 0)
        #expect(await settledChanges() == [WatchedChange(token: 1, path: file, kind: .contentsChanged)])
    }

    @Test func aQueueOverflowWarnsAndReachesEveryToken() async throws {
        let (first, second) = (directory.directory("one"), directory.directory("two"))
        let watcher = makeWatcher(recorder)
        try watcher.watch(first + "/f", token: 1)
        try watcher.watch(second + "/g", token: 2)
        watcher.ingest(inotifyRecord(watch: -1, mask: .queueOverflow))
        #expect(await recorder.wait(forCount: 2))
        #expect(
            Set(recorder.changes) == [
                WatchedChange(token: 1, path: first + "/f", kind: .overflow),
                WatchedChange(token: 2, path: second + "/g", kind: .overflow),
            ])
        #expect(recorder.warnings.contains { $0.contains("overflowed") })
        // A truncated buffer is rejected the same way, without crashing.
        watcher.ingest(Array(inotifyRecord(watch: 1, mask: .modify, name: "f").prefix(20)))
        #expect(await recorder.wait(forCount: 4))
        #expect(recorder.warnings.contains { $0.contains("truncated inotify record") })
    }

    @Test func withoutWatchesLeftADirectoryIsPolledAndWatchedAgainLater() async throws {
        let exhausted = Atomic<Bool>(true)
        let system = InotifySystem(
            initialize: InotifySystem.live.initialize,
            addWatch: { descriptor, directory in
                exhausted.load(ordering: .relaxed)
                    ? .failure(SystemCallError(call: "inotify_add_watch", errno: ENOSPC, path: directory))
                    : InotifySystem.live.addWatch(descriptor, directory)
            })
        let file = directory.file("f")
        appendText("x\n", to: file)
        let watcher = makeWatcher(recorder, pollInterval: .milliseconds(30), system: system)
        try watcher.watch(file, token: 1)
        #expect(watcher.watchCount == 0)
        #expect(recorder.warnings.count == 1)
        #expect(recorder.warnings.first?.contains("max_user_watches") == true)
        appendText("polled\n", to: file)
        #expect(await settledChanges() == [WatchedChange(token: 1, path: file, kind: .contentsChanged)])
        #expect(unlink(file) == 0)
        #expect(await recorder.wait(forCount: 2))
        #expect(recorder.changes.last?.kind == .deleted)

        exhausted.store(false, ordering: .relaxed)
        #expect(await recorder.wait { _, warnings in warnings.contains { $0.contains("watched with inotify again") } })
        #expect(watcher.watchCount == 1)
        #expect(utimes(directory.path, nil) == 0)  // not the token's entry: nothing
        appendText("watched\n", to: file)
        #expect(await recorder.wait(forCount: 3))
        #expect(recorder.changes.last?.kind == .contentsChanged)
    }

    @Test func withoutInotifyEveryDirectoryIsPolledUntilItIsAvailable() async throws {
        let attempts = Atomic<Int>(0)
        let system = InotifySystem(
            initialize: {
                attempts.wrappingAdd(1, ordering: .relaxed).oldValue == 0
                    ? .failure(SystemCallError(call: "inotify_init1", errno: EMFILE, path: nil))
                    : InotifySystem.live.initialize()
            },
            addWatch: InotifySystem.live.addWatch)
        let file = directory.file("f")
        let watcher = makeWatcher(recorder, pollInterval: .milliseconds(30), system: system)
        #expect(watcher.inotifyDescriptor == nil)
        #expect(recorder.warnings.first?.contains("max_user_instances") == true)
        try watcher.watch(file, token: 1)
        #expect(await recorder.wait { _, warnings in warnings.contains { $0.contains("available again") } })
        #expect(watcher.inotifyDescriptor != nil)
        appendText("x\n", to: file)
        #expect(await settledChanges() == [WatchedChange(token: 1, path: file, kind: .contentsChanged)])
    }

    @Test func aDeletedDirectoryIsPolledUntilItComesBack() async throws {
        let parent = directory.directory("parent")
        let file = parent + "/f"
        appendText("x\n", to: file)
        let watcher = makeWatcher(recorder, pollInterval: .milliseconds(30))
        try watcher.watch(file, token: 1)
        #expect(unlink(file) == 0)
        #expect(rmdir(parent) == 0)
        #expect(await settledChanges() == [WatchedChange(token: 1, path: file, kind: .deleted)])
        #expect(watcher.watchCount == 0)
        #expect(recorder.warnings.contains { $0.contains("polling for it to come back") })
        _ = directory.directory("parent")
        appendText("back\n", to: file)
        #expect(await recorder.wait { _, warnings in warnings.contains { $0.contains("watched with inotify again") } })
        #expect(await recorder.wait(forCount: 2))
        #expect(recorder.changes.last == WatchedChange(token: 1, path: file, kind: .contentsChanged))
        #expect(watcher.watchCount == 1)
    }

    @Test func closingStopsCallbacksAndRefusesNewWatches() async throws {
        let file = directory.file("f")
        let closedFromCallback = Atomic<Bool>(false)
        let box = Mutex<InotifyWatcher?>(nil)
        let watcher = InotifyWatcher(
            onWarning: { _ in },
            onEvent: { _ in
                box.withLock { $0?.close() }  // close from inside a callback must not deadlock
                closedFromCallback.store(true, ordering: .relaxed)
            })
        box.withLock { $0 = watcher }
        try watcher.watch(file, token: 1)
        appendText("x\n", to: file)
        let deadline = ContinuousClock.now + .seconds(5)
        while !closedFromCallback.load(ordering: .relaxed) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        let closed = closedFromCallback.load(ordering: .relaxed)
        #expect(closed)
        #expect(throws: InotifyWatcherError.closed) { try watcher.watch(file, token: 2) }
        #expect(throws: InotifyWatcherError.invalidPath("relative/f")) {
            try makeWatcher(recorder).watch("relative/f", token: 3)
        }
        box.withLock { $0 = nil }
    }

    @Test func latencyFromAWriteToItsReport() async throws {
        let file = directory.file("f")
        appendText("x\n", to: file)
        let watcher = makeWatcher(recorder)
        try watcher.watch(file, token: 1)
        var latencies: [Duration] = []
        for sample in 1...200 {
            let start = ContinuousClock.now
            appendText("\(sample)\n", to: file)
            guard await recorder.wait(forCount: sample, timeout: .seconds(2)) else { break }
            latencies.append(recorder.timedChanges[sample - 1].at - start)
        }
        #expect(latencies.count == 200)
        guard !latencies.isEmpty else { return }
        let sorted = latencies.sorted()
        let milliseconds = { (duration: Duration) in
            String(
                format: "%.2f",
                Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1e3)
        }
        print(
            "InotifyWatcher latency (debounce 20 ms, \(sorted.count) writes): median \(milliseconds(sorted[sorted.count / 2])) ms,"
                + " p90 \(milliseconds(sorted[sorted.count * 9 / 10])) ms, max \(milliseconds(sorted.last!)) ms")
    }
    @Test func aDirectorysEntriesAreReportedEachAtItsPath() async throws {
        let watched = directory.directory("d")
        let watcher = makeWatcher(recorder)
        try watcher.watchEntries(of: watched, token: 9)
        let (a, b) = (watched + "/a", watched + "/b")
        appendText("x\n", to: a)
        #expect(await settledChanges() == [WatchedChange(token: 9, path: a, kind: .contentsChanged)])
        #expect(rename(a, b) == 0)
        #expect(await recorder.wait(forCount: 2))
        #expect(unlink(b) == 0)
        #expect(await recorder.wait(forCount: 3))
        try await Task.sleep(for: quiet)
        #expect(
            recorder.changes == [
                WatchedChange(token: 9, path: a, kind: .contentsChanged),
                WatchedChange(token: 9, path: a, kind: .movedAway(to: b)),
                WatchedChange(token: 9, path: b, kind: .deleted),
            ])
        #expect(watcher.watchCount == 1)
    }
}
#endif
