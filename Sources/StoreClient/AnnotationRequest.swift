import QuireAPI

/// A note or a highlight to add to a page (`POST /documents/{id}/annotations`): openapi.yaml's
/// `AnnotationRequest`, generated in QuireAPI.
public typealias AnnotationRequest = Components.Schemas.AnnotationRequest

extension AnnotationRequest {
    /// What kind of annotation: a `note` (a text annotation) or a `highlight` over a rectangle.
    public typealias Kind = KindPayload
    /// A rectangle in points, in the page's space (origin at the lower-left corner).
    public typealias Rect = RectPayload
}
