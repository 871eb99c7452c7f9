import FileCoordination
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Quire's errors as Apple's calls report them: Cocoa errors (`NSCocoaErrorDomain`) where Apple's are, with
/// Quire's own error as `NSUnderlyingErrorKey` so that nothing of the cause is lost.
enum AppleErrors {
    /// The error a coordination call of `NSFileCoordinator` reports for `error`: a `.forUploading` read of a missing
    /// item is `NSFileReadNoSuchFileError` (260), as on Apple platforms; everything else is the error itself
    /// (Quire's errors bridge with their description).
    static func coordination(_ error: any Error) -> any Error {
        if case FileCoordinationError.snapshotFailed(let url, _) = error, !exists(url) {
            return cocoa(
                NSFileReadNoSuchFileError, url: url, underlying: error,
                "The file “\(url.lastPathComponent)” couldn’t be opened because there is no such file.")
        }
        return error
    }

    /// The Cocoa error for a versions-store error, as `NSFileVersion`'s members report them.
    static func version(_ error: any Error) -> any Error {
        guard let error = error as? FileVersionError else { return error }
        switch error {
        case .notAFileURL(let url):
            return cocoa(NSFileReadUnsupportedSchemeError, url: url, underlying: error, error.description)
        case .noSuchItem(let url):
            return cocoa(NSFileReadNoSuchFileError, url: url, underlying: error, error.description)
        case .noSuchVersion(_, let item):
            return cocoa(NSFileNoSuchFileError, url: item, underlying: error, error.description)
        case .currentVersionIsTheItem(let url):
            return cocoa(NSFileWriteNoPermissionError, url: url, underlying: error, error.description)
        case .storeFailed(_, let path, _):
            return cocoa(NSFileWriteUnknownError, url: URL(fileURLWithPath: path), underlying: error, error.description)
        case .systemCallFailed(_, let path, let code):
            let cocoaCode =
                switch code {
                case ENOSPC, EDQUOT: NSFileWriteOutOfSpaceError
                case EACCES, EPERM: NSFileWriteNoPermissionError
                case ENOENT: NSFileNoSuchFileError
                case EROFS: NSFileWriteVolumeReadOnlyError
                default: NSFileWriteUnknownError
                }
            return cocoa(cocoaCode, url: URL(fileURLWithPath: path), underlying: error, error.description)
        }
    }

    private static func cocoa(_ code: Int, url: URL, underlying: any Error, _ description: String) -> NSError {
        NSError(
            domain: NSCocoaErrorDomain, code: code,
            userInfo: [
                NSLocalizedDescriptionKey: description, NSURLErrorKey: url, NSFilePathErrorKey: url.path,
                NSUnderlyingErrorKey: underlying,
            ])
    }

    private static func exists(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0
    }
}
