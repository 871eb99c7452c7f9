import DocumentStore
import Foundation
import Testing
import Yams

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

    @Test("every optional member of a JSON answer's schema may be null: the service writes the generated types with absent members as null (AbsentAsNull)")
    func optionalMembersOfAnswersAreNullable() throws {
        let text = String(decoding: OpenAPIController.document, as: UTF8.self)
        let document = try #require(try Yams.load(yaml: text) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let responses = (document["components"] as? [String: Any])?["responses"] as? [String: Any] ?? [:]
        // The schemas of every `application/json` answer, operations' and shared responses' alike.
        var answers: [Any] = []
        func collectAnswers(_ response: Any) {
            if let content = (response as? [String: Any])?["content"] as? [String: Any],
                let json = content["application/json"] as? [String: Any], let schema = json["schema"]
            {
                answers.append(schema)
            }
        }
        for case let item as [String: Any] in (document["paths"] as? [String: Any] ?? [:]).values {
            for case let operation as [String: Any] in item.values {
                for response in (operation["responses"] as? [String: Any] ?? [:]).values { collectAnswers(response) }
            }
        }
        responses.values.forEach(collectAnswers)
        #expect(answers.count >= 15, "the answers' schemas were found (\(answers.count))")

        // Walks each schema (through $ref, properties, items, oneOf and anyOf), noting optional members without null.
        var visited: Set<String> = []
        var notNullable: [String] = []
        func walk(_ schema: Any, at path: String) {
            guard let schema = schema as? [String: Any] else { return }
            if let reference = schema["$ref"] as? String {
                let name = String(reference.split(separator: "/").last ?? "")
                if visited.insert(name).inserted, let target = schemas[name] { walk(target, at: name) }
                return
            }
            let required = Set(schema["required"] as? [String] ?? [])
            for (name, member) in schema["properties"] as? [String: Any] ?? [:] {
                if !required.contains(name), !Self.allowsNull(member, schemas) { notNullable.append("\(path).\(name)") }
                walk(member, at: "\(path).\(name)")
            }
            if let items = schema["items"] { walk(items, at: path + "[]") }
            for key in ["oneOf", "anyOf", "allOf"] {
                for option in schema[key] as? [Any] ?? [] { walk(option, at: path) }
            }
        }
        for answer in answers { walk(answer, at: "answer") }
        #expect(visited.contains("DocumentInfo") && visited.contains("SearchHit") && visited.contains("Metadata"))
        #expect(notNullable.sorted() == [], "optional members the service would write as null, which the schema refuses")
    }

    /// Whether a member's schema allows null: its type lists it, or a schema it refers to or offers does.
    static func allowsNull(_ member: Any, _ schemas: [String: Any]) -> Bool {
        guard let member = member as? [String: Any] else { return false }
        if let types = member["type"] as? [String], types.contains("null") { return true }
        if member["type"] as? String == "null" { return true }
        if let reference = member["$ref"] as? String, let target = schemas[String(reference.split(separator: "/").last ?? "")] {
            return allowsNull(target, schemas)
        }
        return (member["oneOf"] as? [Any] ?? []).contains { allowsNull($0, schemas) }
    }

    @Test("the compiled-in document is the repository's openapi.yaml")
    func compiledIn() throws {
        let onDisk = try Data(contentsOf: packageRoot.appendingPathComponent("openapi.yaml"))
        #expect(Data(OpenAPIController.document) == onDisk)
    }
}
