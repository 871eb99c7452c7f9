import FileCoordination
import Foundation
import Testing

// Fails on main before the versions store: FileVersion and the VersionsProbe helper did not exist.
@Suite("File versions across processes")
struct CrossProcessVersionTests {
    /// Runs the `VersionsProbe` built next to the test bundle on `store`; returns its output lines.
    private func probe(_ arguments: [String], store: FileVersionStore) throws -> [String] {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        var executable = directory.appendingPathComponent("VersionsProbe")
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("VersionsProbe")
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                executable = candidate
                break
            }
            directory.deleteLastPathComponent()
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["QUIRE_VERSIONS_DIR"] = store.directory.path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "VersionsProbe \(arguments) exited \(process.terminationStatus)")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
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
