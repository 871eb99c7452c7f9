/// An error raised by the `Poppler` module. Every failure of poppler-glib, cairo or libpng becomes one of
/// these cases: the module never crashes on bad input and never writes to standard error.
public enum PDFError: Error, Sendable, Equatable {
    /// The input has no bytes at all.
    case empty
    /// The document is encrypted and the password is missing or wrong (the user or the owner password opens it).
    case encrypted
    /// The bytes are not a readable PDF: damaged, truncated, a broken catalog, or not a PDF at all.
    case damaged
    /// poppler rejected the document for another reason (its `POPPLER_ERROR_INVALID` or `OPEN_FILE`).
    case invalid
    /// A page index outside `0..<pageCount`.
    case pageOutOfRange(Int)
    /// A rendering resolution that is not finite, not positive, or above ``PDFLimits/maximumDPI``.
    case invalidResolution(Double)
    /// The rendered image would exceed ``PDFLimits/maximumRenderPixels`` pixels.
    case imageTooLarge(width: Int, height: Int)
    /// An annotation index outside the page's list of annotations.
    case annotationOutOfRange(page: Int, index: Int)
    /// An argument that cannot be used, with the reason (for example an empty search string).
    case invalidArgument(String)
    /// An operation failed inside poppler, cairo, libpng or the operating system, with the reason they gave.
    case operationFailed(operation: String, reason: String)
}

extension PDFError: CustomStringConvertible {
    /// A one-line message for people: what failed and what to do.
    public var description: String {
        switch self {
        case .empty:
            return "the document is empty (0 bytes)"
        case .encrypted:
            return "the document is encrypted: a password is needed, or the one given is wrong"
        case .damaged:
            return "the document is damaged or is not a PDF"
        case .invalid:
            return "poppler rejected the document as invalid"
        case .pageOutOfRange(let index):
            return "page \(index + 1) does not exist in this document"
        case .invalidResolution(let dpi):
            return "resolution \(dpi) dpi is out of range: use a value above 0 and at most \(Int(PDFLimits.maximumDPI))"
        case .imageTooLarge(let width, let height):
            return "the rendered page would be \(width)×\(height) pixels, above the limit of "
                + "\(PDFLimits.maximumRenderPixels) pixels: use a lower resolution"
        case .annotationOutOfRange(let page, let index):
            return "page \(page + 1) has no annotation number \(index)"
        case .invalidArgument(let reason):
            return "invalid argument: \(reason)"
        case .operationFailed(let operation, let reason):
            return "\(operation) failed: \(reason)"
        }
    }
}

/// The bounds every PDF engine applies to rendering, whether it runs in-process or in a worker.
public enum PDFLimits {
    /// The highest rendering resolution accepted, in dots per inch.
    public static let maximumDPI: Double = 1200
    /// The largest rendered image, in pixels (about 600 MB of pixels).
    public static let maximumRenderPixels = 150_000_000
}
