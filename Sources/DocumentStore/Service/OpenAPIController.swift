import Hummingbird
import StoreCore

/// `GET /openapi.yaml`: the OpenAPI 3.1 description of the service, the repository's `openapi.yaml` compiled into
/// the binary (so that the service describes itself wherever it runs).
public struct OpenAPIController: RouteController {
    /// The media type of the document.
    public static let mediaType = "application/yaml"

    /// The document's bytes.
    public static var document: [UInt8] { PackageResources.openapi_yaml }

    /// Makes the controller.
    public init() {}

    /// `/openapi.yaml`.
    public var mountPath: RouterPath { "/openapi.yaml" }

    /// The one route.
    public var routes: RouteCollection<StoreRequestContext> {
        let routes = RouteCollection(context: StoreRequestContext.self)
        routes.get { _, _ in
            Response(
                status: .ok, headers: [.contentType: Self.mediaType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: Self.document)))
        }
        return routes
    }
}
