/// A simple annotation on a page: a note (a "sticky note", PDF `/Text`) or a highlight (PDF `/Highlight`).
public struct PDFAnnotation: Sendable, Equatable {
    /// What kind of annotation this is.
    public enum Kind: Sendable, Equatable, Hashable {
        /// A note (PDF subtype `/Text`).
        case note
        /// A highlight over text (PDF subtype `/Highlight`).
        case highlight
        /// Any other subtype that the page carries; it can be listed and removed but not created here.
        case other(String)

        /// The PDF subtype name, for example "Text" or "Highlight".
        public var subtype: String {
            switch self {
            case .note: return "Text"
            case .highlight: return "Highlight"
            case .other(let name): return name
            }
        }
    }

    /// The kind of annotation.
    public var kind: Kind
    /// Where it sits, in PDF page space (points, origin bottom-left).
    public var rect: PDFRect
    /// Its text contents (may be empty).
    public var contents: String

    /// Creates an annotation description.
    public init(kind: Kind, rect: PDFRect, contents: String) {
        self.kind = kind
        self.rect = rect
        self.contents = contents
    }
}
