import Foundation
import Testing

@Suite("quire read, write, mv, rm")
struct FileCommandTests {
    static let binary = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    @Test("write then read round-trips bytes", arguments: [Data(), Data("text\n".utf8), binary])
    func roundTrip(_ bytes: Data) throws {
        let sandbox = try CoordinationSandbox()
        let file = sandbox.path("f")
        let write = try sandbox.quire(["write", file], input: bytes)
        #expect(write.status == 0 && write.standardError.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == bytes)
        let read = try sandbox.quire(["read", file])
        #expect(read.status == 0)
        #expect(read.standardOutput == bytes)
    }

    @Test("write --from copies another file")
    func writeFrom() throws {
        let sandbox = try CoordinationSandbox()
        let source = try sandbox.make("source", "from a file\n")
        let file = try sandbox.make("f", "old\n")
        #expect(try sandbox.quire(["write", file, "--from", source], input: Data()).status == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "from a file\n")
    }

    @Test("write replaces the file atomically: a new inode, the old mode, no temporary file left")
    func atomic() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f", "old\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file)
        let before = try FileManager.default.attributesOfItem(atPath: file)
        #expect(try sandbox.quire(["write", file], input: Data("new\n".utf8)).status == 0)
        let after = try FileManager.default.attributesOfItem(atPath: file)
        #expect(before[.systemFileNumber] as? Int != after[.systemFileNumber] as? Int)
        #expect(after[.posixPermissions] as? Int == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.files.path) == ["f"])
    }

    @Test("failures give one line on stderr and their exit code")
    func failures() throws {
        let sandbox = try CoordinationSandbox()
        let cases: [([String], Int32)] = [
            (["read", sandbox.path("missing")], 66),
            (["read", sandbox.files.path], 66),
            (["write", sandbox.path("f"), "--from", sandbox.path("missing")], 66),
            (["write", sandbox.path("no-such-dir/f")], 73),
            (["mv", sandbox.path("missing"), sandbox.path("x")], 66),
            (["rm", sandbox.path("missing")], 66),
        ]
        for (arguments, status) in cases {
            let result = try sandbox.quire(arguments, input: Data("x".utf8))
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.errorLines.count == 1 && result.standardError.hasPrefix("quire: error: "))
            #expect(result.standardOutput.isEmpty)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.files.path).isEmpty)
    }

    @Test("mv renames, and moves into a directory")
    func move() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f", "moved\n")
        #expect(try sandbox.quire(["mv", file, sandbox.path("g")]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try String(contentsOfFile: sandbox.path("g"), encoding: .utf8) == "moved\n")
        try FileManager.default.createDirectory(atPath: sandbox.path("dir"), withIntermediateDirectories: false)
        #expect(try sandbox.quire(["mv", sandbox.path("g"), sandbox.path("dir")]).status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.path("dir/g")))
    }

    @Test("rm deletes a file; a directory only with -r")
    func remove() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f")
        #expect(try sandbox.quire(["rm", file]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: file))
        try FileManager.default.createDirectory(atPath: sandbox.path("dir/sub"), withIntermediateDirectories: true)
        try sandbox.make("dir/sub/x")
        let refused = try sandbox.quire(["rm", sandbox.path("dir")])
        #expect(refused.status == 64)
        #expect(refused.errorLines.count == 1 && refused.standardError.contains("-r"))
        #expect(FileManager.default.fileExists(atPath: sandbox.path("dir/sub/x")))
        #expect(try sandbox.quire(["rm", "-r", sandbox.path("dir")]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.path("dir")))
    }
}
