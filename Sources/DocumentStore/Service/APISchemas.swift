import Foundation
import Yams

/// What the service's compiled-in `openapi.yaml` says about its schemas, read once, so that nothing here repeats a
/// schema:
/// - the member rules of the JSON request bodies (``JSONRequestBody``): each body's members by path (`rect.width`;
///   `files[]` for an array's elements), whether each is required, its JSON type, the values a string may take (an
///   `enum`, directly or through a `$ref`), what a string stands for (its `title`: "a path") and the bounds of a
///   number (`minimum`, `exclusiveMinimum`), which the message names;
/// - the members of each schema that may be null (`type: [string, 'null']`), which a body without them writes as
///   null rather than leaving them out (the event stream's `etag`, beside `from`, which is left out).
enum APISchemas {
    /// The rules of every schema in `components.schemas`, by schema name; empty when the document cannot be read
    /// (a test reads it, so a service that ships cannot meet that: every member would be refused by name).
    static let rules: [String: [String: JSONMemberRule]] = read.rules

    /// The names of the top-level members that may be null, by schema name; empty when the document cannot be read.
    static let nullableMembers: [String: Set<String>] = read.nullable

    /// Both, from one reading of the document.
    private static let read: (rules: [String: [String: JSONMemberRule]], nullable: [String: Set<String>]) = {
        let text = String(decoding: OpenAPIController.document, as: UTF8.self)
        guard let document = (try? Yams.load(yaml: text)) as? [String: Any],
            let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        else { return ([:], [:]) }
        var rules: [String: [String: JSONMemberRule]] = [:]
        var nullable: [String: Set<String>] = [:]
        for (name, schema) in schemas {
            var members: [String: JSONMemberRule] = [:]
            collect(schema, at: "", into: &members, schemas: schemas)
            rules[name] = members
            let properties = resolve(schema, schemas)?["properties"] as? [String: Any] ?? [:]
            nullable[name] = Set(properties.compactMap { member, schema in
                ((schema as? [String: Any])?["type"] as? [String])?.contains("null") == true ? member : nil
            })
        }
        return (rules, nullable)
    }()

    /// The rules of the members of the object `schema`, at `path`.
    private static func collect(
        _ schema: Any, at path: String, into members: inout [String: JSONMemberRule], schemas: [String: Any]
    ) {
        guard let object = resolve(schema, schemas) else { return }
        let required = Set(object["required"] as? [String] ?? [])
        for (name, member) in object["properties"] as? [String: Any] ?? [:] {
            let memberPath = path.isEmpty ? name : path + "." + name
            guard let rule = rule(member, required: required.contains(name), schemas: schemas) else { continue }
            members[memberPath] = rule
            switch rule.kind {
            case .object: collect(member, at: memberPath, into: &members, schemas: schemas)
            case .array:
                if let items = resolve(member, schemas)?["items"],
                    let itemRule = self.rule(items, required: false, schemas: schemas)
                {
                    members[memberPath + "[]"] = itemRule
                    if itemRule.kind == .object { collect(items, at: memberPath + "[]", into: &members, schemas: schemas) }
                }
            default: break
            }
        }
    }

    /// The rule of one member's schema; nil for a type a body never holds (a boolean, say).
    private static func rule(_ schema: Any, required: Bool, schemas: [String: Any]) -> JSONMemberRule? {
        guard let schema = resolve(schema, schemas) else { return nil }
        let type = (schema["type"] as? String) ?? (schema["type"] as? [String])?.first { $0 != "null" }
        switch type {
        case "string":
            let allowed = (schema["enum"] as? [Any] ?? []).compactMap { $0 as? String }
            let expected =
                allowed.isEmpty
                ? (schema["title"] as? String).map { "\($0) (a string)" } ?? "a string"
                : "the string " + listing(allowed.map { "\"\($0)\"" }, joinedBy: "or")
            return JSONMemberRule(kind: .string, required: required, expected: expected, allowed: allowed)
        case "integer":
            return JSONMemberRule(kind: .wholeNumber, required: required, expected: "a whole number" + bounds(schema))
        case "number":
            return JSONMemberRule(kind: .number, required: required, expected: "a number" + bounds(schema))
        case "object":
            let names = (schema["properties"] as? [String: Any] ?? [:]).keys.sorted()
            return JSONMemberRule(
                kind: .object, required: required, expected: "an object with the members " + listing(names, joinedBy: "and"))
        case "array":
            let items = schema["items"].flatMap { resolve($0, schemas) }
            let of = (items?["type"] as? String).map { " of \($0)s" } ?? ""
            return JSONMemberRule(kind: .array, required: required, expected: "an array" + of)
        default:
            return nil
        }
    }

    /// The schema itself, or the one its `$ref` names.
    private static func resolve(_ schema: Any, _ schemas: [String: Any]) -> [String: Any]? {
        guard let schema = schema as? [String: Any] else { return nil }
        guard let reference = schema["$ref"] as? String else { return schema }
        return schemas[String(reference.split(separator: "/").last ?? "")] as? [String: Any]
    }

    /// ` from 1`, ` above 0`, or nothing.
    private static func bounds(_ schema: [String: Any]) -> String {
        if let minimum = number(schema["exclusiveMinimum"]) { return " above \(minimum)" }
        if let minimum = number(schema["minimum"]) { return " from \(minimum)" }
        return ""
    }

    /// A bound as the schema writes it (`1`, `0.5`).
    private static func number(_ value: Any?) -> String? {
        if let integer = value as? Int { return String(integer) }
        if let double = value as? Double { return String(double) }
        return nil
    }

    /// `a, b and c`.
    private static func listing(_ items: [String], joinedBy word: String) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(word) " + items[items.count - 1]
    }
}
