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
}
