import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireAPI
import StoreCore

/// `GET /search`: the pages whose text (or the documents whose metadata) match `q`, best first, as
/// ``SearchResults``; `limit`, `cursor`, `state` and `document` as `openapi.yaml` says. A query that cannot be run
/// (missing, empty, too long, only exclusions) is a 400 problem naming `q`, never an engine's error.
public struct SearchController: RouteController {
    private let library: DocumentLibrary

    /// Makes the controller.
    public init(library: DocumentLibrary) {
        self.library = library
    }

    /// `/search`.
    public var mountPath: RouterPath { "/search" }

    /// The one route.
    public var routes: RouteCollection<StoreRequestContext> {
        let routes = RouteCollection(context: StoreRequestContext.self)
        routes.get { [library] request, _ in
            let items = request.uri.queryParameters.map { (name: String($0.key), value: String($0.value)) }
            let search = try SearchParameters.request(items, cursors: library.listingCursors)
            let results = Components.Schemas.SearchResults(try await library.search(search))
            var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
            if let next = results.next {
                headers[HTTPField.Name("Link")!] = "<\(Self.nextPageLink(items, cursor: next))>; rel=\"next\""
            }
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: try DocumentRepresentations.encode(results))))
        }
        return routes
    }

    /// The relative URL of the next page: the same parameters, the new cursor.
    static func nextPageLink(_ items: [(name: String, value: String)], cursor: String) -> String {
        let allowed = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let kept = items.filter { $0.name != "cursor" }.map { item in
            item.name + "=" + (item.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }
        return "/search?" + (kept + ["cursor=" + cursor]).joined(separator: "&")
    }
}
