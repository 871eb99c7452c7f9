import QuireAPI

/// An RFC 9457 problem-details answer of the service (`application/problem+json`): openapi.yaml's `Problem`,
/// generated in QuireAPI; or what stands for one when an error answer has another shape.
///
/// Its members: the HTTP `status`; the kind of problem (`type`: `about:blank` or one of the service's
/// `/problems/...` identifiers); the short, fixed `title`; what went wrong this time (`detail`: names the document,
/// the header or the limit), when the service says. On a 412, `etag` and `version` give the document's current
/// validator and version; on 400 `/problems/invalid-parameter`, `parameter` names the query parameter, path
/// parameter or JSON member at fault (`limit`, `cursor`, `rect.width`); `header` names a malformed header, `limit`
/// a 413's limit in bytes, and `requestId` a 500's request id in the service's log.
public typealias ServiceProblem = Components.Schemas.Problem

extension Components.Schemas.Problem {
    /// Makes a problem of `status`, such as the stand-in for an error answer that is not one.
    public init(status: Int, type: String = "about:blank", title: String, detail: String? = nil) {
        self.init(_type: type, title: title, status: status, detail: detail)
    }

    /// The kind of problem: `about:blank` or one of the service's `/problems/...` identifiers (the generator names
    /// the member `_type`, `type` being one of its reserved words).
    public var type: String { _type }

    /// On a 412: the document's current version, as a number.
    public var currentVersion: Int64? { version.flatMap { Int64($0) } }

    /// The title, then the detail when there is one: `Precondition Failed: the document changed since …`.
    public var message: String {
        guard let detail, !detail.isEmpty, detail != title else { return title }
        return "\(title): \(detail)"
    }
}
