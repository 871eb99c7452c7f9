import ArgumentParser

/// An error that ends a command with one line on standard error and a documented, sysexits-style exit code.
///
/// Exit codes (also in Docs/operating.md): 0 success; 64 bad usage; 65 the input is not a usable PDF (or the service
/// refused a change to a document); 66 an input file or document cannot be read or does not exist; 69 the
/// shared file-coordination arbiter, or the document-store service, is unavailable; 70 an internal failure;
/// 73 an output cannot be created; 74 an input/output error; 75 a temporary failure (a coordinated wait timed
/// out, or a presenter refused); 76 the service answered outside its protocol; 77 permission denied (or a PDF's
/// password, or the service's token, is missing or wrong); 78 invalid configuration.
public struct CommandFailure: Error {
    /// The line printed after `quire: error: `.
    public let message: String
    /// The process's exit status.
    public let exitCode: Int32

    /// EX_USAGE: the command was used incorrectly.
    public static let usage: Int32 = 64
    /// EX_DATAERR: the input data is wrong (not a usable PDF).
    public static let dataError: Int32 = 65
    /// EX_NOINPUT: an input file does not exist or cannot be read.
    public static let noInput: Int32 = 66
    /// EX_UNAVAILABLE: the shared file-coordination arbiter cannot be reached or started.
    public static let unavailable: Int32 = 69
    /// EX_SOFTWARE: an internal failure.
    public static let software: Int32 = 70
    /// EX_CANTCREAT: an output file cannot be created.
    public static let cannotCreate: Int32 = 73
    /// EX_IOERR: reading or writing failed.
    public static let ioError: Int32 = 74
    /// EX_TEMPFAIL: try again later (a coordinated wait timed out, a presenter refused).
    public static let temporaryFailure: Int32 = 75
    /// EX_PROTOCOL: the other side answered something the protocol does not allow.
    public static let protocolError: Int32 = 76
    /// EX_NOPERM: permission denied.
    public static let permission: Int32 = 77
    /// EX_CONFIG: the configuration is invalid.
    public static let configuration: Int32 = 78

    /// Makes a failure with its message and exit code.
    public init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }
}

extension ParsableCommand {
    /// Runs `body`; a `CommandFailure` becomes one line on standard error and its exit code.
    @discardableResult
    public func reportingFailures<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as CommandFailure {
            StandardStreams.printError("quire: error: \(failure.message)")
            throw ExitCode(failure.exitCode)
        }
    }

    /// Runs the asynchronous `body`; a `CommandFailure` becomes one line on standard error and its exit code.
    @discardableResult
    public func reportingFailures<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let failure as CommandFailure {
            StandardStreams.printError("quire: error: \(failure.message)")
            throw ExitCode(failure.exitCode)
        }
    }
}
