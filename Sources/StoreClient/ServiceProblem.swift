/// An RFC 9457 problem-details answer of the service (`application/problem+json`), or what stands for one when
/// an error answer has another shape.
public struct ServiceProblem: Sendable, Hashable, Decodable {
    /// The HTTP status.
    public var status: Int
    /// The kind of problem: `about:blank` or one of the service's `/problems/...` identifiers.
    public var type: String
    /// The short, fixed summary of the kind of problem.
    public var title: String
    /// What went wrong this time (names the document, the header or the limit), when the service says.
    public var detail: String?
    /// On 412: the document's current validator, when the service says.
    public var etag: String?
    /// On 412: the document's current version, when the service says.
    public var version: Int64?
    /// On 400 `/problems/invalid-parameter`: the query parameter, path parameter or JSON member at fault
    /// (`limit`, `cursor`, `rect.width`).
    public var parameter: String?

    /// Makes a problem.
    public init(status: Int, type: String = "about:blank", title: String, detail: String? = nil) {
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
    }

    private enum CodingKeys: String, CodingKey {
        case status, type, title, detail, etag, version, parameter
    }

    /// Decodes the members this client reads; `type` defaults to `about:blank` as RFC 9457 says.
    /// - Throws: `DecodingError` when `status` or `title` is missing or not of its type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Int.self, forKey: .status)
        type = try container.decodeIfPresent(String.self, forKey: .type) ?? "about:blank"
        title = try container.decode(String.self, forKey: .title)
        detail = try container.decodeIfPresent(String.self, forKey: .detail)
        etag = try? container.decodeIfPresent(String.self, forKey: .etag)
        parameter = try? container.decodeIfPresent(String.self, forKey: .parameter)
        // The service sends extension members as strings.
        version =
            (try? container.decodeIfPresent(Int64.self, forKey: .version))
            ?? (try? container.decodeIfPresent(String.self, forKey: .version)).flatMap { $0.flatMap { Int64($0) } }
    }

    /// The title, then the detail when there is one: `Precondition Failed: the document changed since …`.
    public var message: String {
        guard let detail, !detail.isEmpty, detail != title else { return title }
        return "\(title): \(detail)"
    }
}
