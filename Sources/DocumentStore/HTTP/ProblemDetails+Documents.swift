import StoreCore

/// The document-specific problems the routes answer themselves, before the store is asked (the store's own
/// refusals arrive as ``StoreError``s and become problems through ``ProblemDetails/init(_:)``); their `type`
/// identifiers are listed in `openapi.yaml`.
extension ProblemDetails {
    /// 404: the document has no version with this id.
    static func versionNotFound(_ id: DocumentID, _ version: String) -> ProblemDetails {
        ProblemDetails(StoreError.versionNotFound(id, version: version))
    }

    /// 400: the id in the path is not a valid document id.
    static func invalidID(_ text: String) -> ProblemDetails {
        ProblemDetails(
            status: .badRequest, type: "/problems/invalid-id", title: "Invalid document id",
            detail: "\"\(text.prefix(80))\" is not a document id (1 to 64 letters, digits, '-' and '_')")
    }

    /// 400: a parameter (path, query or body member) is out of range or malformed.
    static func invalidParameter(_ name: String, _ detail: String) -> ProblemDetails {
        ProblemDetails(StoreError.invalidParameter(name, reason: detail))
    }

    /// The `WWW-Authenticate` challenge of a 401 about a document password (RFC 9110 §11.6.1): the client
    /// answers it with the `X-Document-Password` header.
    static let documentPasswordChallenge = "Document-Password realm=\"quire\""

    /// 415: the body's media type is not one the route takes.
    static func unsupportedMediaType(_ got: String?, expected: [String]) -> ProblemDetails {
        ProblemDetails(
            status: .unsupportedMediaType, type: "/problems/unsupported-media-type", title: "Unsupported media type",
            detail: "the body's Content-Type is \(got.map { "\"\($0)\"" } ?? "missing"); this route takes "
                + expected.joined(separator: " or "))
    }
}
