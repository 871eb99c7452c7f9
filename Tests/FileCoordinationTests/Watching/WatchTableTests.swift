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
    /// The work of one entry's events in a directory of `names` watched entries: a write, its close, and a create
    /// of a name no one watches.
    func workOfOneEntrysEvents(amongNames names: Int) -> (work: Int, actions: [Action]) {
        var table = WatchTable(pollInterval: .seconds(1))
        for index in 0..<names {
            _ = table.register(
                token: UInt64(index), directory: "/files", name: "d\(index).pdf", watch: .success(1), snapshot: nil,
                at: now)
        }
        let before = table.entriesVisited
        let actions = table.handle(
            [
                InotifyEvent(watch: 1, mask: .modify, name: "d7.pdf"),
                InotifyEvent(watch: 1, mask: .closeWrite, name: "d7.pdf"),
                InotifyEvent(watch: 1, mask: .create, name: "new.pdf"),
            ], at: now)
        return (table.entriesVisited - before, actions)
    }

    @Test func anEntrysEventCostsNoMoreAmongFiftyThousandNamesThanAmongFifty() {
        let small = workOfOneEntrysEvents(amongNames: 50)
        let large = workOfOneEntrysEvents(amongNames: 50_000)
        let expected = [report(7, "/files/d7.pdf", .contentsChanged), report(7, "/files/d7.pdf", .contentsChanged)]
        #expect(small.actions == expected)
        #expect(large.actions == expected)
        #expect(small.work > 0)
        #expect(large.work <= 2 * small.work, "work at 50,000 names: \(large.work), at 50: \(small.work)")
    }

    /// Random registrations, moves, renames and events in a few directories, checked against a model that is
    /// only a map from token to path: every event reaches exactly the tokens whose path it names.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomOperationsAgreeWithAMapOfTokensToPaths(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var table = WatchTable(pollInterval: .seconds(1))
        var model: [UInt64: (directory: Int32, name: String)] = [:]
        let directories: [Int32: String] = [1: "/a", 2: "/b", 3: "/c"]
        func path(_ place: (directory: Int32, name: String)) -> String { directories[place.directory]! + "/" + place.name }
        // An anchor in each directory keeps its watch (the kernel sends no events for a watch that is gone).
        for (descriptor, directory) in directories {
            let anchor = 10_000 + UInt64(descriptor)
            _ = table.register(
                token: anchor, directory: directory, name: "anchor", watch: .success(descriptor), snapshot: nil,
                at: now)
            model[anchor] = (descriptor, "anchor")
        }
        var cookie: UInt32 = 1
        for _ in 0..<20_000 {
            let directory = Int32.random(in: 1...3, using: &random)
            let name = "n\(Int.random(in: 0..<400, using: &random))"
            let token = UInt64.random(in: 0..<1_000, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0...3:
                _ = table.register(
                    token: token, directory: directories[directory]!, name: name, watch: .success(directory),
                    snapshot: nil, at: now)
                model[token] = (directory, name)
            case 4:
                _ = table.unregister(token: token)
                model[token] = nil
            case 5...7:
                let actions = table.handle([InotifyEvent(watch: directory, mask: .delete, name: name)], at: now)
                let expected = model.filter { $0.value.directory == directory && $0.value.name == name }.keys.sorted()
                #expect(actions == expected.map { report($0, path((directory, name)), .deleted) })
            default:
                // A rename from `name` to a fresh name in another directory: its tokens follow it.
                let target = Int32.random(in: 1...3, using: &random)
                let newName = "m\(cookie)"
                let moved = model.filter { $0.value.directory == directory && $0.value.name == name }.keys.sorted()
                let actions = table.handle(
                    [
                        InotifyEvent(watch: directory, mask: .movedFrom, cookie: cookie, name: name),
                        InotifyEvent(watch: target, mask: .movedTo, cookie: cookie, name: newName),
                    ], at: now)
                let reports = actions.filter { if case .report = $0 { true } else { false } }
                #expect(
                    reports
                        == moved.map { report($0, path((directory, name)), .movedAway(to: nil)) }
                        + moved.map { report($0, path((directory, name)), .movedAway(to: path((target, newName)))) })
                for token in moved { model[token] = (target, newName) }
                cookie += 1
            }
        }
        for (token, place) in model { #expect(table.registrations[token]?.path == path(place)) }
        #expect(table.registrations.count == model.count)
    }
    @Test func aDirectorysEntryObserverHearsEachEntryAtItsPathWhateverTheNamesWatchedThere() {
        var table = WatchTable(pollInterval: .seconds(1))
        _ = table.register(token: 100, directory: "/d", name: "", watch: .success(1), snapshot: nil, at: now)
        _ = table.register(token: 200, directory: "/e", name: "", watch: .success(2), snapshot: nil, at: now)
        _ = table.register(token: 1, directory: "/d", name: "a", watch: .success(1), snapshot: nil, at: now)
        #expect(table.registrations[100]?.path == "/d")
        let written = table.handle(
            [
                InotifyEvent(watch: 1, mask: .create, name: "new"),
                InotifyEvent(watch: 1, mask: .closeWrite, name: "new"),  // a close without a write: nothing
                InotifyEvent(watch: 1, mask: .modify, name: "a"),
                InotifyEvent(watch: 1, mask: .closeWrite, name: "a"),
                InotifyEvent(watch: 1, mask: .delete, name: "old"),
            ], at: now)
        #expect(
            written == [
                report(100, "/d/new", .contentsChanged), report(100, "/d/a", .contentsChanged),
                report(1, "/d/a", .contentsChanged), report(100, "/d/a", .contentsChanged),
                report(1, "/d/a", .contentsChanged), report(100, "/d/old", .deleted),
            ])
        // A rename within the directory, and one into the other observed directory.
        let renamed = table.handle(
            [
                InotifyEvent(watch: 1, mask: .movedFrom, cookie: 5, name: "new"),
                InotifyEvent(watch: 1, mask: .movedTo, cookie: 5, name: "newer"),
                InotifyEvent(watch: 1, mask: .movedFrom, cookie: 6, name: "newer"),
                InotifyEvent(watch: 2, mask: .movedTo, cookie: 6, name: "x"),
            ], at: now)
        #expect(
            renamed == [
                report(100, "/d/new", .movedAway(to: nil)), report(100, "/d/new", .movedAway(to: "/d/newer")),
                report(100, "/d/newer", .movedAway(to: nil)), report(100, "/d/newer", .movedAway(to: "/e/x")),
                report(200, "/e/x", .contentsChanged),
            ])
        // Its directory's loss reaches it like any token of the directory.
        let lost = table.handle([InotifyEvent(watch: 2, mask: .deleteSelf)], at: now)
        #expect(lost.contains(report(200, "/e", .deleted)))
        #expect(table.unregister(token: 100) == [])
        #expect(table.unregister(token: 1) == [.removeWatch(1)])
    }

    @Test func anEntryObserversEventCostsNoMoreAmongFiftyThousandWatchedNames() {
        func work(names: Int) -> Int {
            var table = WatchTable(pollInterval: .seconds(1))
            _ = table.register(token: 1 << 40, directory: "/files", name: "", watch: .success(1), snapshot: nil, at: now)
            for index in 0..<names {
                _ = table.register(
                    token: UInt64(index), directory: "/files", name: "d\(index).pdf", watch: .success(1),
                    snapshot: nil, at: now)
            }
            let before = table.entriesVisited
            let actions = table.handle([InotifyEvent(watch: 1, mask: .create, name: "upload.pdf")], at: now)
            #expect(actions == [report(1 << 40, "/files/upload.pdf", .contentsChanged)])
            return table.entriesVisited - before
        }
        let (small, large) = (work(names: 50), work(names: 50_000))
        #expect(small > 0 && large <= 2 * small, "at 50,000 names: \(large), at 50: \(small)")
    }
}
#endif
