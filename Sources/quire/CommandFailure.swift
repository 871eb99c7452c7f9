import ArgumentParser
import Poppler

/// An error that ends a command with one line on standard error and a documented exit code.
///
/// Exit codes (also in the README): 0 success; 64 bad usage (unknown page, bad range or resolution);
/// 65 the input is not a usable PDF (empty, damaged, invalid); 66 the input file cannot be read;
/// 70 an internal failure of poppler, cairo or libpng; 73 the output file cannot be written;
/// 77 the document is encrypted and the password is missing or wrong.
struct CommandFailure: Error {
    let message: String
    let exitCode: Int32

    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let software: Int32 = 70
    static let cannotCreate: Int32 = 73
    static let permission: Int32 = 77

    init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// Maps a `PDFError` about `file` to a message and exit code.
    init(_ error: PDFError, file: String) {
        switch error {
        case .empty, .damaged, .invalid:
            self.init("\(file): \(error)", exitCode: Self.dataError)
        case .encrypted:
            self.init("\(file): \(error) (pass it with --password)", exitCode: Self.permission)
        case .pageOutOfRange, .invalidResolution, .imageTooLarge, .annotationOutOfRange, .invalidArgument:
            self.init("\(file): \(error)", exitCode: Self.usage)
        case .operationFailed:
            self.init("\(file): \(error)", exitCode: Self.software)
        }
    }
}

extension ParsableCommand {
    /// Runs `body`; a `CommandFailure` becomes one line on standard error and its exit code.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CommandFailure {
            StandardStreams.printError("quire: error: \(failure.message)")
            throw ExitCode(failure.exitCode)
        }
    }
}
