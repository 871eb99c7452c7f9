#if DEBUG
    import Foundation
    import Testing

    @testable import FileCoordination

    #if canImport(Glibc)
        import Glibc
    #endif

    /// Coordination between real processes through the shared arbiter: each probe is a `CoordinationProbe`
    /// process; each test has an arbiter directory of its own. Serialized: a dozen processes at once on two cores
    /// would test the scheduler, not the arbiter.
    @Suite("Across processes", .serialized)
    struct CrossProcessTests {
        let arbiter: ArbiterDirectory
        let tree: TemporaryTree

        init() throws {
            arbiter = try ArbiterDirectory()
            tree = try TemporaryTree()
        }

        func probe(_ arguments: String...) throws -> ProbeProcess {
            try ProbeProcess(arguments, arbiter: arbiter)
        }

        /// The shared arbiter's status, as `quire claims` sees it.
        func status() throws -> CoordinationStatus {
            try SharedArbiterStatus.fetch(paths: SharedArbiterPaths(directory: URL(fileURLWithPath: arbiter.path)))
        }

        /// Waits (bounded) until the arbiter's status satisfies `predicate`.
        func waitForStatus(_ seconds: Double = 15, _ predicate: (CoordinationStatus) -> Bool) throws -> Bool {
            let deadline = Date(timeIntervalSinceNow: seconds)
            while Date() < deadline {
                if predicate(try status()) { return true }
                usleep(5_000)
            }
            return false
        }

        func waiters(_ status: CoordinationStatus, _ url: URL) -> Int {
            status.claims.first { $0.path == url.path }?.waiters.count ?? 0
        }

        /// With `afterAnAccess`, the presenter's process first makes a coordinated access: the thread waiting for
        /// that grant connects (and here hosts) itself, and the connection's thread, which polled no socket then,
        /// must still read what later comes for the process's presenters.
        @Test(arguments: [false, true])
        func aWriteInAnotherProcessReachesAPresenterAsRelinquishChangeReacquire(afterAnAccess: Bool) async throws {
            try await offPool {
                let first = try tree.file("first.txt", contents: "x")
                let file = try tree.file("doc.pdf", contents: "v1")
                let presenter =
                    try afterAnAccess
                    ? probe("present", file.path, "--access-first", first.path) : probe("present", file.path)
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                let writer = try probe("write", file.path, "--append", "v2", "--timeout", "10")
                #expect(writer.exitStatus() == 0, "\(writer.label): \(writer.printed)")
                #expect(presenter.waitFor("reacquire"), "\(presenter.label): \(presenter.printed)")
                #expect(presenter.printed == ["ready", "relinquishToWriter", "presentedItemDidChange", "reacquire"])
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
            }
        }

        /// The probe's presenter implements `presentedItemDidChange` and no subitem method, as much Apple-platform
        /// code: a creation inside its package reaches it as a change of the package.
        @Test func aWriteInsideAPackageInAnotherProcessReachesAPresenterOfThePackageAsAChange() async throws {
            try await offPool {
                let package = try tree.directory("doc.qpkg")
                let presenter = try probe("present", package.path)
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                let writer = try probe("write", package.appendingPathComponent("page").path, "--append", "v1")
                #expect(writer.exitStatus() == 0, "\(writer.label): \(writer.printed)")
                #expect(presenter.waitFor("reacquire"), "\(presenter.label): \(presenter.printed)")
                #expect(presenter.printed == ["ready", "relinquishToWriter", "presentedItemDidChange", "reacquire"])
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
            }
        }

        @Test func aReadInAnotherProcessMakesThePresenterSaveFirst() async throws {
            try await offPool {
                let file = try tree.file("doc.txt", contents: "disk")
                let presenter = try probe("present", file.path, "--save-text", "+unsaved")
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                let reader = try probe("read", file.path)
                #expect(reader.exitStatus() == 0, "\(reader.label): \(reader.printed)")
                #expect(reader.printed == ["content:disk+unsaved"])
                #expect(
                    presenter.printed.prefix(4) == ["ready", "relinquishToReader", "savePresentedItemChanges", "saved"])
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
            }
        }

        @Test func aDeletionInAnotherProcessIsAccommodatedBeforeTheDeleterRuns() async throws {
            try await offPool {
                let file = try tree.file("doc.txt", contents: "x")
                let marker = tree.url("accommodated")
                let presenter = try probe("present", file.path, "--accommodate-marker", marker.path)
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                let deleter = try probe("write", file.path, "--delete", "--check-marker", marker.path)
                #expect(deleter.exitStatus() == 0, "\(deleter.label): \(deleter.printed)")
                #expect(deleter.printed == ["marker-present", "done"])
                #expect(!FileManager.default.fileExists(atPath: file.path))
                #expect(presenter.printed.contains("accommodatePresentedItemDeletion"))
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
            }
        }

        @Test func readersInTwoProcessesOverlap() async throws {
            try await offPool {
                let file = try tree.file("shared.txt")
                let first = try probe("hold", "--read", file.path)
                #expect(first.waitFor("granted"), "\(first.label): \(first.printed)")
                let second = try probe("hold", "--read", file.path)
                #expect(second.waitFor("granted"), "a second reader waited for the first")
                first.send()
                second.send()
                #expect(first.exitStatus() == 0, "\(first.label): \(first.printed)")
                #expect(second.exitStatus() == 0, "\(second.label): \(second.printed)")
            }
        }

        @Test(arguments: [("--read", "--write"), ("--write", "--read"), ("--write", "--write")])
        func anAccessWaitsForAConflictingOneInAnotherProcess(first: String, second: String) throws {
            let file = try tree.file("contended.txt")
            let holder = try probe("hold", first, file.path)
            #expect(holder.waitFor("granted"), "\(holder.label): \(holder.printed)")
            let waiter = try probe("hold", second, file.path)
            #expect(try waitForStatus { waiters($0, file) == 1 })
            #expect(!waiter.printed.contains("granted"))
            holder.send()
            #expect(waiter.waitFor("granted"), "\(waiter.label): \(waiter.printed)")
            waiter.send()
            #expect(holder.exitStatus() == 0, "\(holder.label): \(holder.printed)")
            #expect(waiter.exitStatus() == 0, "\(waiter.label): \(waiter.printed)")
        }

        @Test func aWaitingWriterIsNotStarvedByReadersOfOtherProcesses() async throws {
            try await offPool {
                let file = try tree.file("popular.txt")
                let reader1 = try probe("hold", "--read", file.path)
                #expect(reader1.waitFor("granted"), "\(reader1.label): \(reader1.printed)")
                let writer = try probe("hold", "--write", file.path)
                #expect(try waitForStatus { waiters($0, file) == 1 })
                let reader2 = try probe("hold", "--read", file.path)
                #expect(try waitForStatus { waiters($0, file) == 2 })
                #expect(!reader2.printed.contains("granted"), "a reader overtook the waiting writer")
                reader1.send()
                #expect(writer.waitFor("granted"), "\(writer.label): \(writer.printed)")
                #expect(!reader2.printed.contains("granted"))
                writer.send()
                #expect(reader2.waitFor("granted"), "\(reader2.label): \(reader2.printed)")
                reader2.send()
                for probe in [reader1, writer, reader2] {
                    #expect(probe.exitStatus() == 0, "\(probe.label): \(probe.printed)")
                }
            }
        }

        @Test func twoIntentsOfOneCallAreHeldTogether() async throws {
            try await offPool {
                let x = try tree.file("x.txt")
                let y = try tree.file("y.txt")
                let holder = try probe("hold", "--write", x.path, y.path)
                #expect(holder.waitFor("granted"), "\(holder.label): \(holder.printed)")
                for file in [x, y] {
                    let other = try probe("write", file.path, "--append", "!", "--timeout", "0.3")
                    #expect(other.exitStatus() == 75, "\(other.label): \(other.printed)")
                    #expect(other.printed == ["timedOut"])
                }
                holder.send()
                #expect(holder.exitStatus() == 0, "\(holder.label): \(holder.printed)")
                let after = try probe("write", x.path, "--append", "!", "--timeout", "10")
                #expect(after.exitStatus() == 0, "\(after.label): \(after.printed)")
            }
        }

        @Test func killingAHolderLetsTheWaiterThroughWithinOneSecond() async throws {
            try await offPool {
                let file = try tree.file("held.txt")
                let holder = try probe("hold", "--write", file.path)
                #expect(holder.waitFor("granted"), "\(holder.label): \(holder.printed)")
                let waiter = try probe("write", file.path, "--append", "w")
                #expect(try waitForStatus { waiters($0, file) == 1 })
                let killed = Date()
                holder.signal(SIGKILL)
                #expect(waiter.waitFor("done", 10))
                let elapsed = Date().timeIntervalSince(killed)
                #expect(elapsed < 1, "the waiter got through \(elapsed) s after the holder was killed")
                #expect(waiter.exitStatus() == 0, "\(waiter.label): \(waiter.printed)")
            }
        }

        @Test func aPresenterThatNeverRepliesTimesTheWriterOutAndOthersGoOn() async throws {
            try await offPool {
                let file = try tree.file("stuck.txt")
                let other = try tree.file("other.txt")
                let presenter = try probe("present", file.path, "--silent")
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                let writer = try probe("write", file.path, "--append", "x", "--timeout", "0.5")
                let bystander = try probe("write", other.path, "--append", "y", "--timeout", "10")
                #expect(bystander.exitStatus() == 0, "\(bystander.label): \(bystander.printed)")
                #expect(writer.exitStatus() == 75, "\(writer.label): \(writer.printed)")
                #expect(writer.printed == ["timedOut"])
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
            }
        }

        @Test func killingTheHostDuringAWriteStormLosesNothingAndNeverOverlaps() async throws {
            try await offPool {
                let host = try probe("host")
                #expect(host.waitForLine { $0.hasPrefix("hosting ") })
                let storm = try ProbeStorm(
                    in: tree, arbiter: arbiter, perProcess: 300, environments: Array(repeating: [:], count: 4))
                #expect(storm.writers[0].waitFor("progress 100", 60))
                host.signal(SIGKILL)
                #expect(host.exitStatus() != 0)
                _ = try storm.finish()
            }
        }

        /// Four processes queue for one file: accesses pass from one to the next on the host's hand-over board
        /// (each process counts those it received and passed on there), and still one at a time, none lost.
        @Test func aWriteStormHandsAccessesOverOnTheBoardOneAtATime() async throws {
            try await offPool {
                let host = try probe("host")
                #expect(host.waitForLine { $0.hasPrefix("hosting ") })
                let storm = try ProbeStorm(
                    in: tree, arbiter: arbiter, perProcess: 300, environments: Array(repeating: [:], count: 4))
                let counts = try storm.finish()
                let received = counts.reduce(0) { $0 + $1[0] }
                let passedOn = counts.reduce(0) { $0 + $1[1] }
                // Every grant taken on the board was put there by an access that ended there.
                #expect(received > 0 && received <= passedOn, "received \(received), passed on \(passedOn)")
                host.signal(SIGTERM)
                #expect(host.exitStatus() == 0)
            }
        }

        @Test func uncoordinatedChangesReachAnObservingPresenterOnceEach() async throws {
            try await offPool {
                let file = try tree.file("watched.txt", contents: "a")
                let presenter = try probe("present", file.path, "--observes")
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                func changes() -> Int { presenter.printed.filter { $0 == "presentedItemDidChange" }.count }
                func expectChanges(_ count: Int) {
                    #expect(presenter.waitFor("presentedItemDidChange", count: count))
                    // The debounce window (20 ms) is over long before this: a second report would have come.
                    usleep(300_000)
                    #expect(changes() == count, "\(presenter.printed)")
                }
                // Replaced by a rename, as editors save.
                let temporary = try tree.file("watched.txt.tmp", contents: "b")
                #expect(rename(temporary.path, file.path) == 0)
                expectChanges(1)
                // Appended to in place.
                let handle = try FileHandle(forWritingTo: file)
                try handle.seekToEnd()
                try handle.write(contentsOf: Data("c".utf8))
                try handle.close()
                expectChanges(2)
                // A coordinated write is reported once, through coordination.
                let writer = try probe("write", file.path, "--append", "d")
                #expect(writer.exitStatus() == 0, "\(writer.label): \(writer.printed)")
                #expect(presenter.waitFor("reacquire"), "\(presenter.label): \(presenter.printed)")
                expectChanges(3)
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
            }
        }

        @Test func anUnsafeDirectoryOrSocketIsRefused() async throws {
            try await offPool {
                let file = try tree.file("f.txt")
                // Too open.
                try FileManager.default.createDirectory(atPath: arbiter.path, withIntermediateDirectories: true)
                chmod(arbiter.path, 0o755)
                let open = try probe("write", file.path, "--append", "x")
                #expect(open.exitStatus() == 1, "\(open.label): \(open.printed)")
                #expect(open.printed.first?.contains("has mode 755") == true, "\(open.printed)")
                // Owned by somebody else (the suite runs as root in CI; skipped otherwise).
                chmod(arbiter.path, 0o700)
                if getuid() == 0 {
                    chown(arbiter.path, 65534, 65534)
                    let foreign = try probe("write", file.path, "--append", "x")
                    #expect(foreign.exitStatus() == 1, "\(foreign.label): \(foreign.printed)")
                    #expect(foreign.printed.first?.contains("belongs to uid 65534") == true, "\(foreign.printed)")
                    chown(arbiter.path, 0, 0)
                }
                // A socket others could use.
                let host = try probe("host")
                #expect(host.waitForLine { $0.hasPrefix("hosting ") })
                chmod(arbiter.path + "/arbiter.sock", 0o666)
                let exposed = try probe("write", file.path, "--append", "x")
                #expect(exposed.exitStatus() == 1, "\(exposed.label): \(exposed.printed)")
                #expect(exposed.printed.first?.contains("must be 0600") == true, "\(exposed.printed)")
                host.signal(SIGTERM)
                #expect(host.exitStatus() == 0, "\(host.label): \(host.printed)")
            }
        }
    }
#endif
