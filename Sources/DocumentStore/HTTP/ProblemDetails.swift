import Foundation
import HTTPTypes
import Hummingbird
import StoreCore

/// An error answered as RFC 9457 problem details: `application/problem+json` with `type`, `title`, `status`,
/// `detail`, `instance` and extension members, plus any headers the status needs (`ETag` on 412,
/// `Content-Range` on 416, `WWW-Authenticate` on 401).
///
/// Throw it from a route: Hummingbird renders every `HTTPResponseError`, and the service's problem middleware
/// turns every other error into one, so that no error leaves the service in another shape.
public struct ProblemDetails: HTTPResponseError, Sendable, Equatable, CustomStringConvertible {
    /// The response status.
    public var status: HTTPResponse.Status
    /// A URI reference naming the kind of problem: `about:blank` when the status says it all, else one of the
    /// `/problems/...` identifiers documented in `openapi.yaml`.
    public var type: String
    /// A short summary of the kind of problem, the same for every occurrence of `type`.
    public var title: String
    /// What went wrong this time, for a person: names the document, the header or the limit involved.
    public var detail: String?
    /// A URI reference naming this occurrence (usually the request path).
    public var instance: String?
    /// Extension members (for example `etag` on a 412); names of the standard members are not allowed.
    public var extensions: [String: String]
    /// Headers sent with the problem.
    public var headers: HTTPFields

    /// The media type of the body.
    public static let mediaType = "application/problem+json"

    /// The member names RFC 9457 defines, which extension members may not reuse.
    static let standardMembers: Set<String> = ["type", "title", "status", "detail", "instance"]

    /// Makes a problem; `title` defaults to the status's reason phrase (as RFC 9457 asks for `about:blank`).
    public init(
        status: HTTPResponse.Status,
        type: String = "about:blank",
        title: String? = nil,
        detail: String? = nil,
        instance: String? = nil,
        extensions: [String: String] = [:],
        headers: HTTPFields = [:]
    ) {
        precondition(
            extensions.keys.allSatisfy { !Self.standardMembers.contains($0) },
            "problem extension members must not reuse the standard member names")
        self.status = status
        self.type = type
        self.title = title ?? status.reasonPhrase
        self.detail = detail
        self.instance = instance
        self.extensions = extensions
        self.headers = headers
    }

    /// The JSON body: the standard members that are set and the extension members, keys sorted.
    public var body: Data {
        var members: [String: JSONMember] = [
            "type": .string(type), "title": .string(title), "status": .int(status.code),
        ]
        if let detail { members["detail"] = .string(detail) }
        if let instance { members["instance"] = .string(instance) }
        for (name, value) in extensions { members[name] = .string(value) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings and integers into a dictionary cannot fail.
        return (try? encoder.encode(members)) ?? Data("{}".utf8)
    }

    /// The response: status, the problem's headers, `Content-Type: application/problem+json`, the JSON body.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let buffer = ByteBuffer(bytes: body)
        var headers = self.headers
        headers[.contentType] = Self.mediaType
        headers[.contentLength] = String(buffer.readableBytes)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }

    /// `STATUS title: detail`, for logs.
    public var description: String {
        "\(status.code) \(title)" + (detail.map { ": \($0)" } ?? "")
    }

    /// A member of the JSON body.
    private enum JSONMember: Encodable {
        case string(String)
        case int(Int)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let string): try container.encode(string)
            case .int(let int): try container.encode(int)
            }
        }
    }
}
