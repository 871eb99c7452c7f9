import Foundation
import Testing

@Suite("quire exec")
struct ExecCommandTests {
    @Test("exits with the command's status")
    func exitStatus() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f")
        #expect(try sandbox.quire(["exec", "--write", file, "--", "true"]).status == 0)
        #expect(try sandbox.quire(["exec", "--read", file, "--", "sh", "-c", "exit 7"]).status == 7)
    }

    @Test("runs the command with inherited standard streams and its arguments untouched")
    func streams() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f", "held bytes\n")
        let result = try sandbox.quire(["exec", "--read", file, "--", "sh", "-c", "cat \"$1\"; echo oops >&2", "sh", file])
        #expect(result.status == 0)
        #expect(result.output == "held bytes\n")
        #expect(result.standardError == "oops\n")
    }

    @Test("a command killed by a signal gives 128 plus the signal")
    func signalled() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f")
        #expect(try sandbox.quire(["exec", "--write", file, "--", "sh", "-c", "kill -TERM $$"]).status == 143)
    }

    @Test("a missing command gives 127 and a command that cannot run 126, with one line on stderr")
    func launchFailures() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f")
        let missing = try sandbox.quire(["exec", "--write", file, "--", "quire-no-such-command"])
        #expect(missing.status == 127)
        #expect(missing.errorLines == ["quire: error: quire-no-such-command: command not found"])
        let notExecutable = try sandbox.quire(["exec", "--write", file, "--", file])
        #expect(notExecutable.status == 126)
        #expect(notExecutable.errorLines.count == 1 && notExecutable.standardError.hasPrefix("quire: error: "))
    }

    @Test("the command starts with an empty signal mask")
    func signalMask() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f")
        let result = try sandbox.quire(["exec", "--read", file, "--", "grep", "SigBlk", "/proc/self/status"])
        #expect(result.status == 0)
        #expect(result.output.hasSuffix("0000000000000000\n"))
    }

    @Test("bad usage gives 64 and one line", arguments: [
        ["exec", "--write", "--", "true"],
        ["exec", "--write", "f"],
        ["exec", "--write", "f", "--timeout", "1", "--", "true"],
        ["exec", "--write", "--timeout", "-1", "f", "--", "true"],
    ])
    func usage(_ arguments: [String]) throws {
        let sandbox = try CoordinationSandbox()
        let result = try sandbox.quire(arguments)
        #expect(result.status == 64)
        #expect(result.errorLines.count == 1 && result.standardError.hasPrefix("quire: error: "))
    }

    @Test("several files are held in one access")
    func severalFiles() throws {
        let sandbox = try CoordinationSandbox()
        let first = try sandbox.make("a")
        let second = try sandbox.make("b")
        #expect(try sandbox.quire(["exec", "--write", first, second, "--", "true"]).status == 0)
        #expect(try sandbox.quire(["exec", "--read", first, second, "--", "true"]).status == 0)
    }

    /// Cross-process: needs the shared arbiter.
    @Test("[cross-process] the access is held while the command runs: another writer times out with 75")
    func holdsAccess() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f")
        let holder = try sandbox.startHolding("--write", file)
        #expect(holder.waitFor("held"))
        let blocked = try sandbox.quire(["exec", "--write", "--timeout", "0.05", file, "--", "true"])
        #expect(blocked.status == 75)
        #expect(blocked.errorLines.count == 1 && blocked.standardError.contains("timed out"))
        let reader = try sandbox.quire(["exec", "--read", "--timeout", "0.05", file, "--", "true"])
        #expect(reader.status == 75)
        holder.closeInput()
        #expect(holder.waitForExit() == 0)
        #expect(try sandbox.quire(["exec", "--write", "--timeout", "10", file, "--", "true"]).status == 0)
    }

    /// Cross-process: needs the shared arbiter. `quire exec` makes a relative FILE absolute itself, as
    /// `URL(fileURLWithPath:)` would (the working directory, a slash, the path).
    @Test("[cross-process] a relative FILE is the file its absolute path names: it waits for the holder of that path")
    func relativeFile() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f")
        let holder = try sandbox.startHolding("--write", file)
        #expect(holder.waitFor("held"))
        let blocked = try sandbox.quire(["exec", "--write", "--timeout", "0.05", "f", "--", "true"], directory: sandbox.files)
        #expect(blocked.status == 75, "\(blocked.standardError)")
        let nested = try sandbox.quire(
            ["exec", "--read", "--timeout", "0.05", "files/../files/f", "--", "true"], directory: sandbox.root)
        #expect(nested.status == 75, "\(nested.standardError)")
        holder.closeInput()
        #expect(holder.waitForExit() == 0)
        #expect(try sandbox.quire(["exec", "--write", "--timeout", "10", "f", "--", "true"], directory: sandbox.files).status == 0)
    }

    /// Cross-process: needs the shared arbiter.
    @Test("[cross-process] readers share: a second reader runs while the first holds")
    func readersShare() throws {
        let sandbox = try CoordinationSandbox()
        let file = try sandbox.make("f")
        let holder = try sandbox.startHolding("--read", file)
        #expect(holder.waitFor("held"))
        #expect(try sandbox.quire(["exec", "--read", "--timeout", "5", file, "--", "true"]).status == 0)
        holder.closeInput()
        #expect(holder.waitForExit() == 0)
    }
}
