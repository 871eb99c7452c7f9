import Foundation
import QuireAPI
import StoreCore

/// A JSON request body whose schema in `openapi.yaml` is a closed object (`additionalProperties: false`): the
/// members it may have, read from the spec (``APISchemas``), so that an unknown member, a missing one and one of
/// the wrong type or value are answered by name (Foundation's `JSONDecoder` calls a fractional number where an
/// integer is wanted "not valid JSON").
protocol JSONRequestBody: Decodable {
    /// The schema's name in `openapi.yaml`, for messages.
    static var schemaName: String { get }
}

/// What one member of a ``JSONRequestBody`` must be.
struct JSONMemberRule: Sendable {
    /// The JSON types a member can be asked to have.
    enum Kind: Sendable {
        case string, wholeNumber, number, object, array
    }

    /// The member's type.
    var kind: Kind
    /// Whether the member must be present (never for array elements).
    var required: Bool
    /// The type as a person reads it: "a whole number from 1".
    var expected: String
    /// For a string, the values it may have (the schema's enum, from its generated type); empty for any string.
    var allowed: [String] = []
}

extension JSONRequestBody {
    /// Decodes a request body.
    /// - Throws: a 400 ``ProblemDetails``: `about:blank` when the body is not JSON or not an object;
    ///   `/problems/invalid-parameter` naming the member that appears twice in its object, is unknown, missing or of
    ///   the wrong type (with the type it must have).
    static func decode(_ data: Data) throws -> Self {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw ProblemDetails.badRequest(
                "the body is not JSON\(reason.map { " (\($0.prefix(120)))" } ?? ""): send a \(schemaName) object")
        }
        guard let object = value as? [String: Any] else {
            throw ProblemDetails.badRequest("the body is JSON but not an object: send a \(schemaName) object")
        }
        if let duplicate = JSONDuplicateKeys.first(in: data) {
            throw ProblemDetails.invalidParameter(
                duplicate, "member \"\(duplicate.prefix(80))\" appears more than once: send it once")
        }
        try check(object, at: "")
        do {
            return try JSONDecoder().decode(Self.self, from: data)
        } catch {
            throw ProblemDetails.badRequest("the body is not a valid \(schemaName) object: \(error)")
        }
    }

    /// Checks the members of `object`, at `path` in the body.
    private static func check(_ object: [String: Any], at path: String) throws {
        for key in object.keys.sorted() {
            let member = path.isEmpty ? key : path + "." + key
            // The parent check keeps a key such as "rect.x" at the top level from passing for a nested member.
            guard let rule = members[member], parent(of: member) == path else {
                let allowed = members.filter { parent(of: $0.key) == path }.keys.sorted()
                throw ProblemDetails.invalidParameter(
                    member,
                    "\"\(member.prefix(80))\" is not a member of a \(schemaName)"
                        + (path.isEmpty ? "" : "'s \(path)") + " (its members: " + allowed.joined(separator: ", ")
                        + ")")
            }
            try check(object[key] as Any, rule, schemaPath: member, shown: member)
        }
        for (member, rule) in members.sorted(by: { $0.key < $1.key })
        where rule.required && parent(of: member) == path && object[name(of: member)] == nil {
            throw ProblemDetails.invalidParameter(
                member, "member \"\(member)\" is missing: it must be \(rule.expected)")
        }
    }

    /// Checks one value against its rule; `shown` is its path with array indices (`files[2]`).
    private static func check(_ value: Any, _ rule: JSONMemberRule, schemaPath: String, shown: String) throws {
        let fits: Bool
        switch rule.kind {
        case .string: fits = (value as? String).map { rule.allowed.isEmpty || rule.allowed.contains($0) } ?? false
        case .number: fits = number(value) != nil
        case .wholeNumber:
            fits = number(value).map { $0.rounded() == $0 && abs($0) <= 9_007_199_254_740_992 } ?? false
        case .object:
            guard let object = value as? [String: Any] else {
                fits = false
                break
            }
            try check(object, at: schemaPath)
            fits = true
        case .array:
            guard let elements = value as? [Any] else {
                fits = false
                break
            }
            if let elementRule = members[schemaPath + "[]"] {
                for (index, element) in elements.enumerated() {
                    try check(element, elementRule, schemaPath: schemaPath + "[]", shown: shown + "[\(index)]")
                }
            }
            fits = true
        }
        guard fits else {
            throw ProblemDetails.invalidParameter(
                shown, "member \"\(shown)\" must be \(rule.expected), not \(describe(value))")
        }
    }

    /// A JSON number's value (not a boolean's, which Foundation also hands out as an `NSNumber`).
    private static func number(_ value: Any) -> Double? {
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        return number.doubleValue
    }

    /// The JSON type of a value, for messages.
    private static func describe(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let string as String: return "the string \"\(string.prefix(40))\""
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default:
            guard let number = number(value) else { return "a boolean" }
            return number.rounded() == number ? "the number \(number)" : "the fractional number \(number)"
        }
    }

    /// The path of the object that holds a member (`rect` for `rect.width`, `files` for `files[]`).
    private static func parent(of member: String) -> String {
        if member.hasSuffix("[]") { return String(member.dropLast(2)) }
        guard let dot = member.lastIndex(of: ".") else { return "" }
        return String(member[..<dot])
    }

    /// The last name of a member's path.
    private static func name(of member: String) -> String {
        guard let dot = member.lastIndex(of: ".") else { return member }
        return String(member[member.index(after: dot)...])
    }
}

extension JSONRequestBody {
    /// The members of the schema named ``schemaName``, as `openapi.yaml` describes them (``APISchemas``).
    static var members: [String: JSONMemberRule] { APISchemas.rules[schemaName] ?? [:] }
}

extension Components.Schemas.RegisterRequest: JSONRequestBody {
    static let schemaName = "RegisterRequest"
}

extension Components.Schemas.AnnotationRequest: JSONRequestBody {
    static let schemaName = "AnnotationRequest"
}

extension Components.Schemas.ResolveRequest: JSONRequestBody {
    static let schemaName = "ResolveRequest"
}
