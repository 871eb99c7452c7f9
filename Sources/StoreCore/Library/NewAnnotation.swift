/// A note or a highlight to add to a page (``DocumentLibrary/addAnnotation(_:_:precondition:password:)``), as the
/// caller gave it: the library checks every member.
public struct NewAnnotation: Sendable, Equatable {
    /// `note` or `highlight`.
    public var kind: String
    /// The page number, from 1.
    public var page: Int
    /// The rectangle's lower-left corner and size, in points.
    public var x, y, width, height: Double
    /// Its text.
    public var contents: String?

    /// Makes an annotation of `kind` on `page` at the rectangle (`x`, `y`, `width`, `height`).
    public init(kind: String, page: Int, x: Double, y: Double, width: Double, height: Double, contents: String?) {
        self.kind = kind
        self.page = page
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.contents = contents
    }
}
