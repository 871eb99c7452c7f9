#if DEBUG
    import Foundation
    import Testing

    /// Issue 30, items 1 and 2 across processes: what a presenter written for Apple platforms hears when another
    /// process coordinates. Each probe is a `CoordinationProbe` process sharing an arbiter of this test's own.
    @Suite("Apple's presenter forms across processes", .serialized)
    struct AppleFormTests {
        let arbiter: ArbiterDirectory
        let tree: TemporaryTree

        init() throws {
            arbiter = try ArbiterDirectory()
            tree = try TemporaryTree()
        }

        func probe(_ arguments: String...) throws -> ProbeProcess {
            try ProbeProcess(arguments, arbiter: arbiter)
        }

        /// The macOS presenter sample's directory presenter traps in `presentedSubitemDidAppear(at:)`: a file and a
        /// folder created beneath its directory by another process reach it as `presentedSubitemDidChange(at:)`.
        @Test(arguments: [["--append", "v1"], ["--mkdir"]])
        func aCreationInAnotherProcessReachesAnNSFilePresenterAsASubitemChange(how: [String]) async throws {
            try await offPool {
                let directory = try tree.directory("inbox")
                let created = directory.appendingPathComponent("new-item").path
                let presenter = try probe("present-apple", directory.path)
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                let writer = try ProbeProcess(["write", created] + how, arbiter: arbiter)
                #expect(writer.exitStatus() == 0, "\(writer.label): \(writer.printed)")
                let line = "presentedSubitemDidChange \(created)"
                #expect(presenter.waitFor(line), "\(presenter.label): \(presenter.printed)")
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
                #expect(presenter.printed == ["ready", line])
            }
        }

        /// Issue 30, item 6: the presenter's process knows `qpkg` (as every probe, `QUIRE_PACKAGE_EXTENSIONS`), the
        /// writer's does not: the extension, declared to the arbiter, makes the write one of the package for both,
        /// so the package's presenter is asked to relinquish, as on Apple platforms.
        @Test func aWriterThatDoesNotKnowAPackageExtensionStillAsksThePackagePresenter() async throws {
            try await offPool {
                let package = try tree.directory("doc.qpkg")
                let presenter = try probe("present", package.path)
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                let writer = try ProbeProcess(
                    ["write", package.appendingPathComponent("page").path, "--append", "v1", "--timeout", "10"],
                    arbiter: arbiter, environment: ["QUIRE_PACKAGE_EXTENSIONS": ""])
                #expect(writer.exitStatus() == 0, "\(writer.label): \(writer.printed)")
                #expect(presenter.waitFor("reacquire", 5), "\(presenter.label): \(presenter.printed)")
                #expect(presenter.printed == ["ready", "relinquishToWriter", "presentedItemDidChange", "reacquire"])
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
            }
        }

        /// A presenter that implements only `savePresentedItemChanges() async throws` is asked to save before
        /// another process reads, and its error fails that read.
        @Test func anAsyncSaveThatThrowsFailsAReaderInAnotherProcess() async throws {
            try await offPool {
                let file = try tree.file("doc.txt", contents: "disk")
                let presenter = try probe("present-async", file.path, "--refuse")
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                let reader = try probe("read", file.path, "--timeout", "10")
                #expect(reader.exitStatus() == 1, "\(reader.label): \(reader.printed)")
                #expect(
                    reader.printed.contains {
                        $0.hasPrefix("error:") && $0.contains("QuireProbe") && $0.contains("42")
                    },
                    "\(reader.printed)")
                #expect(presenter.printed.contains("savePresentedItemChanges async"))
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
            }
        }

        /// `accommodatePresentedItemDeletion() async throws` is called before another process deletes the item
        /// (which then goes ahead), and when it throws the deletion does not happen.
        @Test(arguments: [false, true])
        func anAsyncDeletionAccommodationRunsBeforeADeleterInAnotherProcess(refuse: Bool) async throws {
            try await offPool {
                let file = try tree.file("doc.txt", contents: "x")
                let presenter =
                    try refuse ? probe("present-async", file.path, "--refuse") : probe("present-async", file.path)
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                let deleter = try probe("write", file.path, "--delete", "--timeout", "10")
                #expect(deleter.exitStatus() == (refuse ? 1 : 0), "\(deleter.label): \(deleter.printed)")
                #expect(FileManager.default.fileExists(atPath: file.path) == refuse)
                #expect(presenter.printed.contains("accommodatePresentedItemDeletion async"))
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
            }
        }

        /// `accommodatePresentedSubitemDeletion(at:) async throws` of a directory's presenter stops another
        /// process's deletion of an item inside it.
        @Test func anAsyncSubitemDeletionRefusalStopsADeleterInAnotherProcess() async throws {
            try await offPool {
                let directory = try tree.directory("folder")
                let file = try tree.file("folder/doc.txt", contents: "x")
                let presenter = try probe("present-async", directory.path, "--refuse")
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                let deleter = try probe("write", file.path, "--delete", "--timeout", "10")
                #expect(deleter.exitStatus() == 1, "\(deleter.label): \(deleter.printed)")
                #expect(FileManager.default.fileExists(atPath: file.path))
                #expect(presenter.printed.contains("accommodatePresentedSubitemDeletion async \(file.path)"))
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
            }
        }
    }
#endif
