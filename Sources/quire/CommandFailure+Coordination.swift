import ArgumentParser
import CoordinatedOperations
import FileCoordination
import Foundation
import QuireCommandLine

#if canImport(Glibc)
import Glibc
#endif

extension CommandFailure {
    /// The exit codes of the coordination commands, for their `--help` (each lists those that apply).
    static let coordinationCodes = """
        64 bad usage; 66 an input is missing or unreadable; 69 the shared coordination arbiter is unavailable; \
        73 an output cannot be created; 74 input/output error; 75 timed out waiting for access, or a \
        presenter refused (try again); 77 permission denied.
        """

    /// Maps what a coordinated operation threw to a message and exit code.
    init(coordinating error: any Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let error as SystemCallError:
            self.init(error.description, exitCode: Self.exitCode(for: error, creating: false))
        case let error as OutputCreationError:
            self.init(error.description, exitCode: Self.exitCode(for: error.failure, creating: true))
        case let error as FileCoordinationError:
            switch error {
            case .timedOut(let url):
                self.init(
                    "timed out waiting for coordinated access to \(url.path) (see who holds it: quire claims)",
                    exitCode: Self.temporaryFailure)
            case .arbiterUnavailable:
                self.init("\(error)", exitCode: Self.unavailable)
            case .notAFileURL:
                self.init("\(error)", exitCode: Self.usage)
            case .invalidNesting:
                self.init("\(error)", exitCode: Self.software)
            case .presenterFailed(let underlying):
                self.init("a file presenter refused: \(underlying)", exitCode: Self.temporaryFailure)
            case .snapshotFailed:
                self.init("\(error)", exitCode: Self.ioError)
            }
        case let error as CocoaError where error.code == .userCancelled:
            self.init("the coordinated access was cancelled", exitCode: Self.temporaryFailure)
        default:
            // A presenter's own error, passed through unchanged by the coordinator.
            self.init("a file presenter refused: \(error)", exitCode: Self.temporaryFailure)
        }
    }

    /// The exit code of a failed call; `creating` when it was making an output (then a missing directory or an
    /// existing item means the output cannot be created).
    private static func exitCode(for error: SystemCallError, creating: Bool) -> Int32 {
        switch error.errno {
        case EACCES, EPERM, EROFS: return permission
        case ENOENT, ENOTDIR: return creating ? cannotCreate : noInput
        case EISDIR: return creating ? cannotCreate : noInput
        case EEXIST, ENOTEMPTY, ENOSPC, EDQUOT, EXDEV, EBUSY: return creating ? cannotCreate : ioError
        default: return ioError
        }
    }
}

extension ParsableCommand {
    /// Runs `body`; any error becomes one line on standard error (`quire: error: …`) and its exit code.
    @discardableResult
    func reportingCoordinationFailures<T>(_ body: () throws -> T) throws -> T {
        try reportingFailures {
            do {
                return try body()
            } catch let exit as ExitCode {
                throw exit
            } catch {
                throw CommandFailure(coordinating: error)
            }
        }
    }
}
