import FileCoordination
import Foundation
import Testing

// Fails on main before the versions store: FileVersion and the VersionsProbe helper did not exist.
@Suite("File versions across processes")
struct CrossProcessVersionTests {
    private func probe(_ arguments: [String], store: FileVersionStore) throws -> [String] {
        try VersionsProbeRunner.run(arguments, store: store)
    }

    @Test("a version or conflict added by one process is seen, resolved and listed by the other")
    func secondProcessSeesVersions() throws {
        let sandbox = try VersionsSandbox()
        let item = try sandbox.write("first", to: "shared.pdf")
        let mine = try sandbox.run { try FileVersion.add(ofItemAt: item, withContentsOf: item) }
        #expect(try probe(["list", item.path], store: sandbox.store) == ["\(mine.id) conflict=false resolved=true"])

        let theirs = try sandbox.write("theirs", to: "theirs.pdf")
        let conflictID = try #require(try probe(["conflict", item.path, theirs.path], store: sandbox.store).first)
        let unresolved = try sandbox.run { try FileVersion.unresolvedConflictVersions(ofItemAt: item) }
        #expect(unresolved.map(\.id) == [conflictID])
        #expect(try sandbox.text(at: unresolved[0].url) == "theirs")

        _ = try sandbox.run { try unresolved[0].setResolved(true) }
        let listed = try probe(["list", item.path], store: sandbox.store)
        #expect(listed.contains("\(conflictID) conflict=true resolved=true"))
        #expect(listed.count == 2)
    }

    // Issue 30, item 3: fails before versions were kept by the item's identity (they stayed with the path).
    @Test("a move in another process takes the versions along; a deletion there leaves none to a new file")
    func versionsFollowTheFileAcrossProcesses() throws {
        let sandbox = try VersionsSandbox()
        let item = try sandbox.write("first", to: "moving.pdf")
        let theirs = try sandbox.write("theirs", to: "theirs.pdf")
        let kept = try sandbox.run { try FileVersion.addConflictVersion(ofItemAt: item, withContentsOf: theirs) }
        let moved = sandbox.items.appendingPathComponent("moved.pdf")
        _ = try probe(["move", item.path, moved.path], store: sandbox.store)
        #expect(try sandbox.run { try FileVersion.otherVersions(ofItemAt: moved) }.map(\.id) == [kept.id])
        #expect(try sandbox.run { try FileVersion.otherVersions(ofItemAt: item) }.isEmpty)

        _ = try probe(["delete", moved.path], store: sandbox.store)
        try sandbox.write("an unrelated file", to: "moved.pdf")
        #expect(try probe(["list", moved.path], store: sandbox.store).isEmpty)
        #expect(try sandbox.run { try FileVersion.unresolvedConflictVersions(ofItemAt: moved) }.isEmpty)
    }
}
