import ArgumentParser

extension ParsableCommand {
    /// Parses the process's arguments and runs the command, as `main()` does, except that a usage error is
    /// one line, `quire: error: …`, with exit code 64, like every other failure. Help and `--version` print
    /// as usual.
    public static func mainWithOneLineUsageErrors() -> Never {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            let code = exitCode(for: error)
            guard code != .success, let line = message(for: error).split(separator: "\n").first else {
                exit(withError: error)
            }
            StandardStreams.printError("quire: error: \(line.trimmingPrefix("Error: ")) (see quire --help)")
            exit(withError: ExitCode(code == .validationFailure ? CommandFailure.usage : code.rawValue))
        }
        do {
            try command.run()
            exit()
        } catch {
            exit(withError: error)
        }
    }
}
