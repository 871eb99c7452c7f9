import Foundation
import HTTPTypes
import Hummingbird
import QuireAPI
import StoreCore

/// An error answered as RFC 9457 problem details: `application/problem+json` with the members of `openapi.yaml`'s
/// `Problem` (`type`, `title`, `status`, `detail`, `instance` and the extension members it lists: `etag` on 412,
/// `parameter` on an invalid parameter, …), plus any headers the status needs (`ETag` on 412, `Content-Range` on
/// 416, `WWW-Authenticate` on 401).
///
/// The body is QuireAPI's generated `Components.Schemas.Problem` (``members``), so an extension member the spec
/// does not list cannot be sent. Throw it from a route: Hummingbird renders every `HTTPResponseError`, and the
/// service's problem middleware turns every other error into one, so that no error leaves the service in another
/// shape.
public struct ProblemDetails: HTTPResponseError, Sendable, Equatable, CustomStringConvertible {
    /// The members of the JSON body, as `openapi.yaml`'s `Problem` has them; set the extension members here
    /// (`members.parameter`, `members.etag`, …).
    public var members: Components.Schemas.Problem
    /// Headers sent with the problem.
    public var headers: HTTPFields

    /// The response status (the body's `status` member follows it).
    public var status: HTTPResponse.Status { didSet { members.status = status.code } }
    /// A URI reference naming the kind of problem: `about:blank` when the status says it all, else one of the
    /// `/problems/...` identifiers documented in `openapi.yaml`.
    public var type: String {
        get { members._type }
        set { members._type = newValue }
    }
    /// A short summary of the kind of problem, the same for every occurrence of `type`.
    public var title: String {
        get { members.title }
        set { members.title = newValue }
    }
    /// What went wrong this time, for a person: names the document, the header or the limit involved.
    public var detail: String? {
        get { members.detail }
        set { members.detail = newValue }
    }
    /// A URI reference naming this occurrence (usually the request path).
    public var instance: String? {
        get { members.instance }
        set { members.instance = newValue }
    }

    /// The media type of the body.
    public static let mediaType = "application/problem+json"

    /// Makes a problem without extension members (set them in ``members``); `title` defaults to the status's reason
    /// phrase (as RFC 9457 asks for `about:blank`).
    public init(
        status: HTTPResponse.Status,
        type: String = "about:blank",
        title: String? = nil,
        detail: String? = nil,
        instance: String? = nil,
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.members = Components.Schemas.Problem(
            _type: type, title: title ?? status.reasonPhrase, status: status.code, detail: detail, instance: instance)
        self.headers = headers
    }

    /// The encoder of the body: keys sorted, slashes as they are.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The JSON body: the members that are set, keys sorted.
    public var body: Data {
        // Strings and an integer always encode.
        (try? Self.encoder.encode(members)) ?? Data("{}".utf8)
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
}
