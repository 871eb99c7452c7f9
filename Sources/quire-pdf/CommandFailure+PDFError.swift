import Poppler
import QuireCommandLine

extension CommandFailure {
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
