/// A note or a highlight to add to a page (`POST /documents/{id}/annotations`).
public struct AnnotationRequest: Sendable, Hashable, Codable {
    /// What kind of annotation.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A note (a text annotation).
        case note
        /// A highlight over a rectangle.
        case highlight
    }

    /// A rectangle in points, in the page's space (origin at the lower-left corner).
    public struct Rect: Sendable, Hashable, Codable {
        /// The lower-left corner and the size, in points.
        public var x, y, width, height: Double

        /// Makes a rectangle.
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// Its kind.
    public var kind: Kind
    /// The page number, from 1.
    public var page: Int
    /// Where it goes on the page.
    public var rect: Rect
    /// Its text.
    public var contents: String?

    /// Makes an annotation request.
    public init(kind: Kind, page: Int, rect: Rect, contents: String? = nil) {
        self.kind = kind
        self.page = page
        self.rect = rect
        self.contents = contents
    }
}
