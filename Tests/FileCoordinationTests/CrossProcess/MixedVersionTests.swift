#if DEBUG
    import Foundation
    import Testing

    @testable import FileCoordination

    /// Processes of two adjacent protocol versions meet one arbiter: a probe told by `QUIRE_TEST_PROTOCOL_VERSIONS`
    /// (read by debug builds only) to speak version 2 alone hosts, and probes of the current range coordinate with
    /// it; a status query of the current range is answered too.
    @Suite("Across processes of two protocol versions", .serialized)
    struct MixedVersionTests {
        let arbiter: ArbiterDirectory
        let tree: TemporaryTree
        static let older = ["QUIRE_TEST_PROTOCOL_VERSIONS": "\(WireProtocol.oldestVersion)"]

        init() throws {
            arbiter = try ArbiterDirectory()
            tree = try TemporaryTree()
        }

        @Test func aHostOfTheOlderVersionCoordinatesClientsOfTheCurrentOne() async throws {
            try await offPool {
                let file = try tree.file("doc.txt", contents: "v1")
                // The first process to coordinate hosts: this one speaks only the older version.
                let presenter = try ProbeProcess(["present", file.path], arbiter: arbiter, environment: Self.older)
                #expect(presenter.waitFor("ready"), "\(presenter.label): \(presenter.printed)")
                // A writer of the current range holds the file: a write of the older version waits for it.
                let holder = try ProbeProcess(["hold", "--write", file.path], arbiter: arbiter)
                #expect(holder.waitFor("granted"), "\(holder.label): \(holder.printed)")
                #expect(presenter.waitFor("relinquishToWriter"), "\(presenter.label): \(presenter.printed)")
                let blocked = try ProbeProcess(
                    ["write", file.path, "--append", "x", "--timeout", "0.3"], arbiter: arbiter, environment: Self.older
                )
                #expect(blocked.exitStatus() == 75, "\(blocked.label): \(blocked.printed)")
                #expect(blocked.printed == ["timedOut"])
                // The status of the current range is answered by the older host, which sees the held claim.
                let status = try SharedArbiterStatus.fetch(
                    paths: SharedArbiterPaths(directory: URL(fileURLWithPath: arbiter.path)))
                #expect(status.claims.contains { $0.path == file.path })
                holder.send()
                #expect(holder.exitStatus() == 0, "\(holder.label): \(holder.printed)")
                #expect(presenter.waitFor("reacquire"), "\(presenter.label): \(presenter.printed)")
                // A write of the current range reaches the older process's presenter.
                let writer = try ProbeProcess(["write", file.path, "--append", "v2"], arbiter: arbiter)
                #expect(writer.exitStatus() == 0, "\(writer.label): \(writer.printed)")
                #expect(presenter.waitFor("reacquire", count: 2), "\(presenter.label): \(presenter.printed)")
                #expect(presenter.printed.filter { $0 == "relinquishToWriter" }.count == 2)
                #expect(
                    presenter.printed.suffix(3) == ["relinquishToWriter", "presentedItemDidChange", "reacquire"],
                    "\(presenter.printed)")
                presenter.closeInput()
                #expect(presenter.exitStatus() == 0, "\(presenter.label): \(presenter.printed)")
                arbiter.remove()
            }
        }

        /// Writers of version 3 (no hand-over board) and of the current version queue for one file behind a host of
        /// the current version: one at a time, none lost; only current ones pass accesses on at the board, and
        /// only to each other.
        @Test func writersWithoutTheBoardQueueWithWritersThatHaveIt() async throws {
            try await offPool {
                let host = try ProbeProcess(["host"], arbiter: arbiter)
                #expect(host.waitForLine { $0.hasPrefix("hosting ") })
                let withoutBoard = ["QUIRE_TEST_PROTOCOL_VERSIONS": "\(WireProtocol.oldestVersion)-3"]
                let storm = try ProbeStorm(
                    in: tree, arbiter: arbiter, perProcess: 200,
                    environments: [withoutBoard, [:], withoutBoard, [:]])
                let counts = try storm.finish()
                #expect(counts[0] == [0, 0] && counts[2] == [0, 0], "\(counts)")
                #expect(counts[1][0] + counts[3][0] <= counts[1][1] + counts[3][1], "\(counts)")
                host.signal(SIGTERM)
                #expect(host.exitStatus() == 0)
                arbiter.remove()
            }
        }
    }
#endif
