import Hummingbird
import StoreCore

/// One file of the web page (`GET /` and `/assets/…`): its bytes, compiled into the binary from
/// `Sources/DocumentStore/Resources/web/`, its media type and its strong entity tag (the SHA-256 of the bytes).
public struct WebAsset: Sendable {
    /// The file's name under `/assets/` (the page itself is `index.html`, served at `/`).
    public let name: String
    /// The `Content-Type` it is served with.
    public let mediaType: String
    /// The file's bytes.
    public let bytes: [UInt8]
    /// The entity tag of the bytes.
    public let tag: EntityTag

    /// Makes an asset; the tag is computed from `bytes`.
    public init(name: String, mediaType: String, bytes: [UInt8]) {
        self.name = name
        self.mediaType = mediaType
        self.bytes = bytes
        self.tag = EntityTag(content: bytes)
    }

    /// The page, served at `/`.
    public static let page = WebAsset(
        name: "index.html", mediaType: "text/html; charset=utf-8", bytes: PackageResources.index_html)

    /// The files the page loads, by name: a fixed table, so that no request path ever reaches the file system.
    public static let assets: [String: WebAsset] = {
        let javaScript = "text/javascript; charset=utf-8"
        let files = [
            WebAsset(name: "app.css", mediaType: "text/css; charset=utf-8", bytes: PackageResources.app_css),
            WebAsset(name: "app.js", mediaType: javaScript, bytes: PackageResources.app_js),
            WebAsset(name: "api.js", mediaType: javaScript, bytes: PackageResources.api_js),
            WebAsset(name: "events.js", mediaType: javaScript, bytes: PackageResources.events_js),
            WebAsset(name: "list.js", mediaType: javaScript, bytes: PackageResources.list_js),
            WebAsset(name: "viewer.js", mediaType: javaScript, bytes: PackageResources.viewer_js),
            WebAsset(name: "icon.svg", mediaType: "image/svg+xml", bytes: PackageResources.icon_svg),
        ]
        return Dictionary(uniqueKeysWithValues: files.map { ($0.name, $0) })
    }()
}
