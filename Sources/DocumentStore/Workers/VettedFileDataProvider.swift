import Documents
import Foundation

/// A coordinated, confined provider whose bytes a PDF worker opens first, within the deadline, each time they
/// are read: a file that another program rewrote with a PDF that crashes poppler or takes too long to open
/// fails its read (the document becomes `damaged`) before the service parses it itself.
///
/// Only a worker's verdict on the PDF fails the read (it crashed, or missed the deadline). When no worker can
/// take the check (all busy past the deadline, none can start, the service stops), the read goes on and the
/// service opens the bytes itself: availability first. A PDF the worker finds damaged, or that needs a
/// password, is left to the service's own open, which says so in the usual terms.
final class VettedFileDataProvider: CoordinatedFileDataProvider, @unchecked Sendable {
    private let vetting: PDFVetting

    /// A provider for `fileURL` beneath `confinement`, checked by `vetting`.
    init(fileURL: URL, confinement: FileConfinement, vetting: PDFVetting) {
        self.vetting = vetting
        super.init(fileURL: fileURL, confinement: confinement)
    }

    /// The bytes, read as ``CoordinatedFileDataProvider/data()`` reads them, once a worker opened them.
    /// Blocks while the worker works: call it off the cooperative pool and the event loops (the store reads on
    /// its thread pool, and on the provider's own change queue).
    /// - Throws: as the coordinated read, or ``PDFVettingFailure`` when the worker crashed or ran out of time.
    override func data() throws -> Data {
        let bytes = try super.data()
        guard !bytes.isEmpty else { return bytes }
        do {
            // Bytes that passed a moment ago (an upload's, checked before it entered the store) pass at once.
            try vetting.checkBlocking(bytes, contents: ContentFingerprint(of: bytes), key: "open:" + uid)
        } catch let error as PDFWorkError {
            switch error {
            case .deadlineExceeded, .workerCrashed: throw PDFVettingFailure(file: fileURL.path, cause: error)
            case .refused, .queueFull, .waitedTooLong, .unavailable, .shutDown: break
            }
        }
        return bytes
    }
}

/// A PDF worker could not open a file's bytes: it crashed on them, or ran out of time.
struct PDFVettingFailure: Error, CustomStringConvertible {
    /// The file.
    let file: String
    /// What the worker did.
    let cause: PDFWorkError

    /// One line: what happened, and that the service did not open the file itself.
    var description: String {
        switch cause {
        case .deadlineExceeded(let deadline):
            return "opening it took a PDF worker longer than \(deadline); the service did not open it itself"
        case .workerCrashed(let how):
            return "a PDF worker stopped while opening it (\(how)); the service did not open it itself"
        default:
            return "a PDF worker could not open it; the service did not open it itself"
        }
    }
}
