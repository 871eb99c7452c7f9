import DocumentStore
import Foundation
import Testing

@Suite("openapi.yaml")
struct OpenAPIDocumentTests {
    /// Every route of DESIGN.md §5 (§5.3: the versions), the web page's two (issue 18) and search (issue 31), as
    /// method and path template.
    static let designRoutes: [(method: String, path: String)] = [
        ("get", "/"), ("get", "/assets/{name}"),
        ("get", "/health"), ("get", "/nodes"), ("get", "/metrics"), ("get", "/openapi.yaml"),
        ("get", "/documents"), ("post", "/documents"),
        ("get", "/documents/{id}"), ("delete", "/documents/{id}"),
        ("get", "/documents/{id}/content"), ("put", "/documents/{id}/content"),
        ("get", "/documents/{id}/pages/{n}/text"), ("get", "/documents/{id}/pages/{n}/image"),
        ("patch", "/documents/{id}/metadata"), ("post", "/documents/{id}/annotations"),
        ("post", "/documents/{id}/save"),
        ("get", "/documents/{id}/conflict"), ("post", "/documents/{id}/conflict/resolve"),
        ("get", "/documents/{id}/versions"), ("post", "/documents/{id}/versions/{version}/restore"),
        ("get", "/events"), ("get", "/search"),
    ]

    /// The operations of the document's `paths`, read from its indentation: `  /path:` then `    method:`.
    static func operations() throws -> Set<String> {
        let text = String(decoding: OpenAPIController.document, as: UTF8.self)
        var operations: Set<String> = []
        var currentPath: String?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("components:") { break }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if let currentPath, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                operations.insert(line.trimmingCharacters(in: .whitespaces).dropLast() + " " + currentPath)
            }
        }
        return operations
    }

    @Test("it describes every route of DESIGN.md §5")
    func coversDesign() throws {
        let operations = try Self.operations()
        for route in Self.designRoutes {
            #expect(operations.contains("\(route.method) \(route.path)"), "\(route.method) \(route.path)")
        }
    }

    @Test("it describes only routes of DESIGN.md §5")
    func nothingElse() throws {
        let design = Set(Self.designRoutes.map { "\($0.method) \($0.path)" })
        let extra = try Self.operations().subtracting(design).filter { !$0.hasPrefix("parameters ") }
        #expect(extra.isEmpty)
    }

    @Test("the service's router answers exactly the operations of openapi.yaml: each operation has its route (method, path and parameter names), and each route its operation")
    func routesAreTheSpec() async throws {
        let service = try DocumentService()
        try await service.run { _ in }
        let specified = try Self.operations().filter { !$0.hasPrefix("parameters ") }
        // HEAD is answered wherever GET is (the router's own HEAD routes); the spec lists GET.
        let routed = Set(service.routes.filter { !$0.hasPrefix("head ") })
        #expect(routed.subtracting(specified).sorted() == [], "routes that openapi.yaml does not describe")
        #expect(specified.subtracting(routed).sorted() == [], "operations of openapi.yaml that no route answers")
        #expect(service.routes.count == Set(service.routes).count, "a route added twice")
    }

    @Test("the compiled-in document is the repository's openapi.yaml")
    func compiledIn() throws {
        let onDisk = try Data(contentsOf: packageRoot.appendingPathComponent("openapi.yaml"))
        #expect(Data(OpenAPIController.document) == onDisk)
    }
}
