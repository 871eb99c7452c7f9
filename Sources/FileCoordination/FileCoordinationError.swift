import Foundation

/// Why a coordinated access did not happen. Cancellation is reported as Apple does, with
/// `CocoaError(.userCancelled)` (NSCocoaErrorDomain 3072); an error a presenter passes to a completion
/// handler reaches the caller unchanged; an error thrown by the accessor propagates unchanged.
public enum FileCoordinationError: Error, Sendable {
    /// A wait exceeded the coordinator's ``FileCoordinator/timeout``; the URL is the item still blocked.
    case timedOut(URL)
    /// The call is not allowed where it was made: a write coordinated inside a single-URL write accessor of the
    /// same coordinator, or by another coordinator of an item that accessor holds (which would wait for ever).
    case invalidNesting
    /// The URL is not a `file:` URL. Apple silently does nothing here; Quire refuses loudly.
    case notAFileURL(URL)
    /// The shared arbiter cannot be reached or started; the text says why.
    case arbiterUnavailable(String)
    /// A presenter failed; Quire passes the presenter's own error through instead where it has it.
    case presenterFailed(any Error)
    /// The temporary snapshot of a `.forUploading` read could not be made (an unreadable file inside, no space
    /// in `$TMPDIR`, an item that is neither a file nor a directory); the URL is the item, the error the cause.
    /// The accessor did not run and nothing was left behind.
    case snapshotFailed(URL, any Error)
}

extension FileCoordinationError: CustomStringConvertible {
    /// A one-line message that names the item.
    public var description: String {
        switch self {
        case .timedOut(let url):
            return "timed out waiting for coordinated access to \(url.path)"
        case .invalidNesting:
            return "a write cannot be coordinated inside the accessor of a single-URL coordinated write of the same "
                + "coordinator, or of the same item "
                + "(use coordinate(readingItemAt:writingItemAt:) or coordinate(writingItemAt:writingItemAt:))"
        case .notAFileURL(let url):
            return "\(url.absoluteString) is not a file URL: only file URLs can be coordinated"
        case .arbiterUnavailable(let reason):
            return "the file-coordination arbiter is unavailable: \(reason)"
        case .presenterFailed(let error):
            return "a file presenter failed: \(error)"
        case .snapshotFailed(let url, let error):
            return "could not make the upload snapshot of \(url.path): \(error); the accessor was not called "
                + "(check that everything in it is readable and that $TMPDIR has room)"
        }
    }
}

extension FileCoordinationError: LocalizedError {
    /// The ``description``, so that the error bridged to `NSError` (as Apple-style code reads it) says what failed.
    public var errorDescription: String? { description }
}
