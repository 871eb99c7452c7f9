#if DEBUG  // @testable needs a debug build (or -enable-testing)
import QuireSystem
import Testing

@testable import FileCoordination

/// The pure token, directory and event table: sharing, renames, lost watches, polling.
@Suite("Interpreting events (pure)")
struct WatchTableTests {
    let now = ContinuousClock.now
    typealias Action = WatchTable.Action

    func report(_ token: UInt64, _ path: String, _ kind: WatchedChange.Kind) -> Action {
        .report(WatchedChange(token: token, path: path, kind: kind))
    }

    /// A table with token 1 at /a/f and token 2 at /a/g (watch 1), token 3 at /b/h (watch 2).
    func table() -> WatchTable {
        var table = WatchTable(pollInterval: .seconds(1))
        _ = table.register(token: 1, directory: "/a", name: "f", watch: .success(1), snapshot: nil, at: now)
        _ = table.register(token: 2, directory: "/a", name: "g", watch: .success(1), snapshot: nil, at: now)
        _ = table.register(token: 3, directory: "/b", name: "h", watch: .success(2), snapshot: nil, at: now)
        return table
    }

    @Test func pathsAreSplitIntoANormalizedParentAndAName() {
        #expect(WatchTable.split("/a//b/c.pdf/")! == ("/a/b", "c.pdf"))
        #expect(WatchTable.split("/c.pdf")! == ("/", "c.pdf"))
        #expect(WatchTable.split("relative/c.pdf") == nil)
        #expect(WatchTable.split("/") == nil)
        #expect(WatchTable.split("/a/../c.pdf") == nil)
        #expect(WatchTable.join("/", "c.pdf") == "/c.pdf")
    }

    @Test func tokensInOneDirectoryShareItsWatchUntilTheLastLeaves() {
        var table = table()
        #expect(table.watchCount == 2)
        #expect(table.unregister(token: 1) == [])
        #expect(table.unregister(token: 2) == [.removeWatch(1)])
        #expect(table.watchCount == 1)
        #expect(table.unregister(token: 2) == [])
    }

    @Test func watchingAKnownTokenAgainMovesIt() {
        var table = table()
        let sameDirectory = table.register(
            token: 1, directory: "/a", name: "renamed", watch: .success(1), snapshot: nil, at: now)
        #expect(sameDirectory == [])
        #expect(table.registrations[1]?.path == "/a/renamed")
        _ = table.unregister(token: 2)
        let elsewhere = table.register(token: 1, directory: "/c", name: "x", watch: .success(3), snapshot: nil, at: now)
        #expect(elsewhere == [.removeWatch(1)])
        #expect(table.watchCount == 2)
    }

    @Test func eachTokenGetsOnlyTheEventsOfItsOwnName() {
        var table = table()
        let actions = table.handle(
            [
                InotifyEvent(watch: 1, mask: .modify, name: "f"),
                InotifyEvent(watch: 1, mask: .attributes, name: "g"),
                InotifyEvent(watch: 1, mask: .delete, name: "unwatched"),
                InotifyEvent(watch: 9, mask: .delete, name: "f"),  // a released watch
            ], at: now)
        #expect(actions == [report(1, "/a/f", .contentsChanged), report(2, "/a/g", .metadataChanged)])
    }

    @Test func aCloseAfterAWriteIsAChangeButACloseWithoutAWriteIsNot() {
        var table = table()
        let touch = table.handle(
            [
                InotifyEvent(watch: 1, mask: .attributes, name: "f"),
                InotifyEvent(watch: 1, mask: .closeWrite, name: "f"),
            ],
            at: now)
        #expect(touch == [report(1, "/a/f", .metadataChanged)])
        let write = table.handle(
            [InotifyEvent(watch: 1, mask: .modify, name: "f"), InotifyEvent(watch: 1, mask: .closeWrite, name: "f")],
            at: now)
        #expect(write == [report(1, "/a/f", .contentsChanged), report(1, "/a/f", .contentsChanged)])
    }

    @Test func anAtomicReplaceIsAContentsChangeOfTheTarget() {
        var table = table()
        let actions = table.handle(
            [
                InotifyEvent(watch: 1, mask: .create, name: "f.tmp"),
                InotifyEvent(watch: 1, mask: .modify, name: "f.tmp"),
                InotifyEvent(watch: 1, mask: .movedFrom, cookie: 5, name: "f.tmp"),
                InotifyEvent(watch: 1, mask: .movedTo, cookie: 5, name: "f"),
            ], at: now)
        #expect(actions == [report(1, "/a/f", .contentsChanged)])
    }

    @Test func aRenamePairedAcrossReadsMovesTheTokenAndReleasesItsOldWatch() {
        var table = table()
        _ = table.unregister(token: 2)
        #expect(
            table.handle([InotifyEvent(watch: 1, mask: .movedFrom, cookie: 9, name: "f")], at: now) == [
                report(1, "/a/f", .movedAway(to: nil))
            ])
        let actions = table.handle([InotifyEvent(watch: 2, mask: .movedTo, cookie: 9, name: "f2")], at: now)
        #expect(actions == [report(1, "/a/f", .movedAway(to: "/b/f2")), .removeWatch(1)])
        #expect(table.registrations[1]?.path == "/b/f2")
        #expect(
            table.handle([InotifyEvent(watch: 2, mask: .modify, name: "f2")], at: now) == [
                report(1, "/b/f2", .contentsChanged)
            ])
    }

    @Test func aRenameOntoAnotherWatchedNameReplacesItAndMovesTheSource() {
        var table = table()
        let actions = table.handle(
            [
                InotifyEvent(watch: 1, mask: .movedFrom, cookie: 3, name: "f"),
                InotifyEvent(watch: 1, mask: .movedTo, cookie: 3, name: "g"),
            ], at: now)
        #expect(
            actions == [
                report(1, "/a/f", .movedAway(to: nil)), report(2, "/a/g", .contentsChanged),
                report(1, "/a/f", .movedAway(to: "/a/g")),
            ])
    }

    @Test func aQueueOverflowReachesEveryWatchedToken() {
        var table = table()
        let actions = table.handle([InotifyEvent(watch: -1, mask: .queueOverflow)], at: now)
        #expect(actions.count == 4)
        #expect(
            actions.dropFirst() == [
                report(1, "/a/f", .overflow), report(2, "/a/g", .overflow), report(3, "/b/h", .overflow),
            ])
    }

    @Test func aDeletedDirectoryDeletesItsTokensWhichArePolledUntilItReturns() {
        var table = table()
        let actions = table.handle(
            [InotifyEvent(watch: 2, mask: .deleteSelf), InotifyEvent(watch: 2, mask: .ignored)], at: now)
        #expect(actions.dropFirst() == [report(3, "/b/h", .deleted), .removeWatch(2)])
        #expect(table.polledPaths == ["/b": [3: "/b/h"]])
        #expect(table.nextScan == now + .seconds(1))
        let snapshot = FileSnapshot(device: 1, inode: 2, size: 3, mode: 0o100644, modified: 4, changed: 4)
        let failed = Result<Int32, SystemCallError>.failure(
            SystemCallError(call: "inotify_add_watch", errno: 2, path: "/b"))
        #expect(table.scanned(directory: "/b", watch: failed, snapshots: [3: nil], at: now) == [])
        #expect(
            table.scanned(directory: "/b", watch: .success(7), snapshots: [3: snapshot], at: now).prefix(1) == [
                report(3, "/b/h", .contentsChanged)
            ])
        #expect(table.registrations[3]?.placement == .watch(7))
        table.scanFinished(at: now)
        #expect(table.nextScan == nil)
    }

    @Test func aWatchTheKernelDropsUnexpectedlyIsAnOverflow() {
        var table = table()
        let actions = table.handle([InotifyEvent(watch: 1, mask: .ignored)], at: now)
        #expect(
            actions.filter { if case .report = $0 { true } else { false } } == [
                report(1, "/a/f", .overflow), report(2, "/a/g", .overflow),
            ])
        #expect(table.watchCount == 1)
    }

    @Test func aDirectoryThatCannotBeWatchedIsPolledWithOneWarning() {
        var table = WatchTable(pollInterval: .milliseconds(50))
        let error = SystemCallError(call: "inotify_add_watch", errno: 28, path: "/a")
        let first = table.register(token: 1, directory: "/a", name: "f", watch: .failure(error), snapshot: nil, at: now)
        let second = table.register(
            token: 2, directory: "/a", name: "g", watch: .failure(error), snapshot: nil, at: now)
        #expect(first.count == 1)
        #expect(second.isEmpty)
        #expect("\(first)".contains("max_user_watches"))
        #expect(table.nextScan == now + .milliseconds(50))
        _ = table.unregister(token: 1)
        _ = table.unregister(token: 2)
        #expect(table.nextScan == nil)
    }
}
#endif
