import ArgumentParser

extension ParsableCommand {
    /// Parses the process's arguments and runs the command, as `main()` does, except that a usage error is
    /// one line, `quire: error: …`, with exit code 64, like every other failure. Help and `--version` print
    /// as usual.
    public static func mainWithOneLineUsageErrors() -> Never {
        let command = parseAsRootWithOneLineUsageErrors()
        do {
            var command = command
            try command.run()
            exit()
        } catch {
            exit(withError: error)
        }
    }

    /// Parses the process's arguments as `mainWithOneLineUsageErrors()` does; help, `--version` and usage errors
    /// end the process here.
    static func parseAsRootWithOneLineUsageErrors() -> any ParsableCommand {
        do {
            return try parseAsRoot()
        } catch {
            let code = exitCode(for: error)
            guard code != .success, let line = message(for: error).split(separator: "\n").first else {
                exit(withError: error)
            }
            StandardStreams.printError("quire: error: \(line.trimmingPrefix("Error: ")) (see quire --help)")
            exit(withError: ExitCode(code == .validationFailure ? CommandFailure.usage : code.rawValue))
        }
    }
}

extension AsyncParsableCommand {
    /// The asynchronous form of `mainWithOneLineUsageErrors()`: runs the parsed command, awaiting it when it is
    /// an `AsyncParsableCommand`.
    public static func mainAsyncWithOneLineUsageErrors() async -> Never {
        let command = parseAsRootWithOneLineUsageErrors()
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var command = command
                try command.run()
            }
            exit()
        } catch {
            exit(withError: error)
        }
    }
}
