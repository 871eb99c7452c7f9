import ArgumentParser
import CoordinatedOperations
import QuireCommandLine

/// `quire exec --read|--write FILE... -- CMD...`: runs a command while holding coordinated access, like flock(1).
struct Exec: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a command while holding coordinated read or write access to files, like flock(1).",
        usage: "quire exec (--read|--write) [--timeout <seconds>] <file>... -- <command> [<argument>...]",
        discussion: """
            All FILEs are acquired in one coordinated access (presenters relinquish, save or are told of the \
            change as for any coordinated access); CMD runs with this process's standard streams, an empty \
            signal mask and default signal handlers; the access ends when CMD exits. SIGTERM and SIGHUP are \
            passed on to CMD; SIGINT and SIGQUIT are left to CMD.

            Exit codes: CMD's exit status, or 128 plus the signal that killed it; 126 CMD cannot be executed; \
            127 CMD not found; 75 timed out waiting for access (--timeout), or a presenter refused; 64 bad \
            usage; 69 the shared coordination arbiter is unavailable; 77 permission denied.
            """
    )

    enum Access: String, EnumerableFlag {
        case read, write

        static func help(for value: Access) -> ArgumentHelp? {
            switch value {
            case .read: "Hold coordinated read access (shared with other readers)."
            case .write: "Hold coordinated write access (exclusive)."
            }
        }
    }

    @Flag(help: "The kind of access to hold.")
    var access: Access

    @Option(help: ArgumentHelp("Give up after waiting this many seconds for access (default: wait).", valueName: "seconds"))
    var timeout: Double?

    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("The files to hold, then --, then the command to run and its arguments.", valueName: "file... -- command"))
    var words: [String] = []

    /// The files: the words before `--`.
    private var files: [String] { Array(words.prefix { $0 != "--" }) }
    /// The command: the words after the first `--`.
    private var command: [String] { Array(words.drop { $0 != "--" }.dropFirst()) }

    func run() throws {
        let status = try reportingCoordinationFailures {
            try Self.perform(writing: access == .write, timeout: timeout, files: files, command: command)
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// Checks the request, holds the access and runs the command.
    /// - Returns: the status to exit with (the command's, or 128 plus the signal that killed it).
    static func perform(writing: Bool, timeout: Double?, files: [String], command: [String]) throws -> Int32 {
        guard !files.isEmpty else {
            throw CommandFailure("name at least one FILE before --", exitCode: CommandFailure.usage)
        }
        if let option = files.first(where: { $0.hasPrefix("-") }) {
            throw CommandFailure(
                "\(option): options go before the files (quire exec --write [--timeout S] FILE... -- CMD)",
                exitCode: CommandFailure.usage)
        }
        guard !command.isEmpty else {
            throw CommandFailure(
                "name the command to run after -- (quire exec --write FILE -- CMD)", exitCode: CommandFailure.usage)
        }
        if let timeout, !(timeout >= 0 && timeout.isFinite) {
            throw CommandFailure("--timeout must be a number of seconds, 0 or more", exitCode: CommandFailure.usage)
        }
        do {
            return try CoordinatedAccess.withAccess(
                to: files, writing: writing, timeout: timeout.map { .nanoseconds(Int64($0 * 1e9)) }
            ) { try ChildProcess.run(command) }.shellStatus
        } catch let error as ChildProcess.LaunchError {
            switch error {
            case .notFound(let name): throw CommandFailure("\(name): command not found", exitCode: 127)
            case .notExecutable(let name, let reason): throw CommandFailure("\(name): \(reason)", exitCode: 126)
            case .spawnFailed(_, let error): throw CommandFailure("cannot start \(error)", exitCode: 71)
            }
        }
    }

    /// Runs `quire exec` without ArgumentParser when its arguments (`arguments` without the program name) take
    /// the plain form `exec (--read|--write) [--timeout S] FILE... -- CMD...`: ArgumentParser's reflection costs
    /// a few milliseconds at every start, which is most of what `quire exec` costs beyond `flock(1)`.
    /// - Returns: the exit status, or nil for any other form (help, errors...), which ArgumentParser then parses
    ///   with the same result.
    static func runPlainForm(_ arguments: ArraySlice<String>) -> Int32? {
        guard arguments.first == "exec" else { return nil }
        var writing: Bool?
        var timeout: Double?
        var rest = arguments.dropFirst()
        while let word = rest.first, word.hasPrefix("-") {
            rest = rest.dropFirst()
            switch word {
            case "--read", "--write":
                guard writing == nil else { return nil }
                writing = word == "--write"
            case "--timeout":
                guard timeout == nil, let value = rest.first.flatMap(Double.init) else { return nil }
                timeout = value
                rest = rest.dropFirst()
            default:
                guard word.hasPrefix("--timeout="), timeout == nil,
                    let value = Double(word.dropFirst("--timeout=".count))
                else { return nil }
                timeout = value
            }
        }
        guard let writing, let separator = rest.firstIndex(of: "--") else { return nil }
        let files = Array(rest[..<separator])
        let command = Array(rest[(separator + 1)...])
        guard !files.isEmpty, !command.isEmpty else { return nil }
        do {
            return try perform(writing: writing, timeout: timeout, files: files, command: command)
        } catch {
            let failure = CommandFailure(coordinating: error)
            StandardStreams.printError("quire: error: \(failure.message)")
            return failure.exitCode
        }
    }
}
