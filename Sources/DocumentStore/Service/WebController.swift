import HTTPTypes
import Hummingbird
import NIOCore
import StoreCore

/// `GET /` and `GET /assets/{name}`: the web page of the store (``WebAsset``), plain HTML, CSS and JavaScript
/// compiled into the binary. It reads with the API's GET routes and follows `/events`; its mutating requests
/// carry the bearer token the person typed, which it keeps for the tab.
///
/// Every answer has a strong `ETag` (`If-None-Match` → 304), `Cache-Control: no-cache` (revalidate, so that a new
/// binary's page is used at once), a strict `Content-Security-Policy` (scripts, styles, images and connections
/// from this origin only; no inline script or style, no plugins, no framing) and `X-Content-Type-Options:
/// nosniff`. An unknown asset is a 404 problem: names are looked up in a fixed table, never on disk.
public struct WebController: RouteController {
    /// The policy every answer carries. `img-src` allows `blob:` for the images the page makes from fetched bytes.
    public static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Makes the controller.
    public init() {}

    /// `/`.
    public var mountPath: RouterPath { "/" }

    /// The page and its assets.
    public var routes: RouteCollection<StoreRequestContext> {
        let routes = RouteCollection(context: StoreRequestContext.self)
        routes.get { request, _ in Self.respond(WebAsset.page, to: request) }
        routes.get("assets/:name") { request, context in
            let name = context.parameters.get("name") ?? ""
            guard let asset = WebAsset.assets[name] else {
                throw ProblemDetails(status: .notFound, detail: "the web page has no asset \"\(name.prefix(80))\"")
            }
            return Self.respond(asset, to: request)
        }
        return routes
    }

    /// The asset, or 304 when `If-None-Match` names its tag.
    static func respond(_ asset: WebAsset, to request: Request) -> Response {
        var headers: HTTPFields = [
            .eTag: asset.tag.headerValue, .cacheControl: "no-cache",
            .contentSecurityPolicy: contentSecurityPolicy, .xContentTypeOptions: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ]
        if let preconditions = try? RequestPreconditions(headers: request.headers),
            preconditions.evaluate(current: asset.tag, method: request.method) == .notModified
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.mediaType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}
